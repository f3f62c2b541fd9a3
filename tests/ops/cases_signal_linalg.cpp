// Signal and linear algebra: DFT (axes, inverse, one-sided, real or complex input, a length), STFT
// (a frame length or a window, one-sided, complex), Det (batches, singular, pivoting), Einsum.
#include "ops/op_table.h"

namespace vx::optable {

VX_OP_CASES(signal_linalg) {
  std::vector<Variant> dft;
  for (int64_t comps : {1, 2})
    for (int64_t axis : {1, 2, -2})
      for (int64_t inverse : {0, 1})
        for (int64_t onesided : {0, 1}) {
          if (onesided && (comps == 2 || inverse)) continue;  // one-sided needs a real forward input
          dft.push_back({cat(comps == 1 ? "real" : "complex", "_axis", axis, inverse ? "_inverse" : "", onesided ? "_onesided" : ""),
                         [=](OpCase& v) {
                           v.in(f32({2, 7, 5, comps})).attr("axis", axis).attr("inverse", inverse).attr("onesided", onesided);
                         }});
        }
  cases.add(OpCase("DFT", "axes_inverse_onesided")
                .opset(17)
                .tol_f32({1e-4, 1e-4})
                .tol_f16({1e-2, 2e-2})
                .variants(std::move(dft))
                .variants({{"full_length", [](OpCase&) {}},
                           {"length4", [](OpCase& v) { v.in(scalar(4, DType::i64).constant()); }},
                           {"length9", [](OpCase& v) { v.in(scalar(9, DType::i64).constant()); }}}));

  cases.add(OpCase("STFT", "frames")
                .opset(17)
                .tol_f32({1e-4, 1e-4})
                .tol_f16({1e-2, 2e-2})
                .variants({inputs_variant("frame_length_onesided0", {f32({2, 40, 1}), scalar(6, DType::i64), omitted(), scalar(10, DType::i64)}),
                           {"frame_length_onesided1", [](OpCase& v) {
                              v.with_inputs({f32({2, 40, 1}), scalar(6, DType::i64), omitted(), scalar(10, DType::i64)}).attr("onesided", int64_t(1));
                            }},
                           inputs_variant("window_onesided0", {f32({2, 40, 1}), scalar(7, DType::i64), f32({12}, 0, 1)}),
                           {"window_onesided1", [](OpCase& v) {
                              v.with_inputs({f32({2, 40, 1}), scalar(7, DType::i64), f32({12}, 0, 1)}).attr("onesided", int64_t(1));
                            }},
                           inputs_variant("complex", {f32({1, 33, 2}), scalar(5, DType::i64), omitted(), scalar(8, DType::i64)})})
                .attr("onesided", int64_t(0)));

  cases.add(OpCase("Det", "batches")
                .opset(11)
                .tol_f32({1e-4, 1e-5})
                .tol_f16({1e-2, 1e-2})
                .variants({inputs_variant("1x1", {f32({1, 1})}), inputs_variant("3x3", {f32({3, 3})}),
                           inputs_variant("2x3_of_4x4", {f32({2, 3, 4, 4})}), inputs_variant("5_of_6x6", {f32({5, 6, 6})}),
                           // A singular matrix (two equal rows) and one that needs pivoting (zero leading entry).
                           inputs_variant("singular_and_pivoting",
                                          {values({2, 3, 3}, {1, 2, 3, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 0, 1, 2, 1, 0})})}));

  struct Equation {
    const char* equation;
    std::vector<Shape> shapes;
  };
  std::vector<Variant> equations;
  for (const Equation& e : {Equation{"ij,jk->ik", {{3, 5}, {5, 4}}}, Equation{"bij,bjk->bik", {{2, 3, 5}, {2, 5, 7}}},
                            Equation{"ij->ji", {{3, 7}}}, Equation{"ij->i", {{4, 9}}}, Equation{"ij", {{4, 3}}},
                            Equation{"i,i", {{11}, {11}}}, Equation{"i,j->ij", {{3}, {5}}}, Equation{"ii->i", {{5, 5}}},
                            Equation{"ii", {{4, 4}}}, Equation{"...ii->...i", {{3, 2, 4, 4}}},
                            Equation{"...ij,...jk->...ik", {{2, 1, 3, 4}, {3, 4, 2}}},
                            Equation{"bn,anm,bm->ba", {{2, 3}, {4, 3, 5}, {2, 5}}}, Equation{"ij,ij->", {{3, 4}, {3, 4}}}})
    equations.push_back({e.equation, [e](OpCase& v) {
                           for (const Shape& s : e.shapes) v.in(f32(s));
                           v.attr("equation", std::string(e.equation));
                         }});
  cases.add(OpCase("Einsum", "equations").opset(12).tol_f32({1e-5, 1e-5}).variants(std::move(equations)));
}

}  // namespace vx::optable
