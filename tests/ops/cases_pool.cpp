// Pooling: MaxPool (with its Indices output, storage orders, dilations, ceil mode), AveragePool
// (pads counted or not), LpPool, the global pools over 1-D to 3-D, and MaxUnpool.
#include "common/test_util.h"
#include "ops/op_table.h"

namespace vx::optable {

namespace {
struct PoolWindow {
  Shape x;
  std::vector<int64_t> kernel, strides, pads, dilations;
  int64_t ceil_mode, include_pad;
  std::string auto_pad;
};

// `fast`: the fast CPU kernel must take the window (else it may leave it to the reference).
Variant pool_window(const PoolWindow& p, bool fast = false) {
  std::string label = cat("x", p.x.str(), "_k", Shape(p.kernel).str());
  if (!p.strides.empty()) label += "_s" + Shape(p.strides).str();
  if (!p.pads.empty()) label += "_p" + Shape(p.pads).str();
  if (!p.dilations.empty()) label += "_d" + Shape(p.dilations).str();
  if (p.ceil_mode) label += "_ceil";
  if (p.include_pad) label += "_include_pad";
  if (!p.auto_pad.empty()) label += "_" + p.auto_pad;
  return {label, [p, fast](OpCase& v) {
            v.with_inputs({f32(p.x)}).attr("kernel_shape", p.kernel);
            if (!p.strides.empty()) v.attr("strides", p.strides);
            if (!p.pads.empty()) v.attr("pads", p.pads);
            if (!p.dilations.empty()) v.attr("dilations", p.dilations);
            if (p.ceil_mode) v.attr("ceil_mode", p.ceil_mode);
            if (p.include_pad) v.attr("count_include_pad", p.include_pad);
            if (!p.auto_pad.empty()) v.attr("auto_pad", p.auto_pad);
            if (!fast) v.may_fall_back(Backend::cpu);
          }};
}

// Flat indices into the unpooled tensor, per channel, with a repeat (as overlapping MaxPool
// windows produce).
InputSpec unpool_indices(Shape pooled, Shape unpooled) {
  return custom(pooled, DType::i64, [unpooled](const Shape& sh, DType, uint64_t seed) {
    Tensor r = test::random_tensor(sh, seed, 0, float(unpooled.numel()) - 0.01f);
    Tensor t(DType::i64, sh);
    const int64_t per_channel = unpooled.numel() / (unpooled[0] * unpooled[1]);
    const int64_t pooled_per_channel = sh.numel() / (sh[0] * sh[1]);
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<int64_t>()[i] = (i / pooled_per_channel) * per_channel + int64_t(r.get(i)) % per_channel;
    t.data<int64_t>()[1] = t.data<int64_t>()[0];  // a repeat
    return t;
  });
}
}  // namespace

VX_OP_CASES(pool) {
  cases.add(OpCase("MaxPool", "windows")
                .opset(19)
                .variants({pool_window({{1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""}),
                           pool_window({{2, 2, 7, 9}, {3, 2}, {2, 2}, {1, 1, 1, 1}, {2, 1}, 1, 0, ""}),
                           pool_window({{1, 2, 7, 9}, {2, 2}, {2, 2}, {}, {}, 0, 0, "SAME_UPPER"}),
                           pool_window({{1, 2, 11}, {3}, {2}, {1, 1}, {}, 1, 0, ""}),
                           pool_window({{1, 2, 4, 5, 6}, {2, 2, 3}, {2, 1, 2}, {}, {}, 0, 0, ""}),
                           pool_window({{2, 5, 17, 13}, {2, 3}, {1, 2}, {0, 1, 1, 2}, {}, 0, 0, ""}, true)}));
  cases.add(OpCase("MaxPool", "resnet_stem")
                .in(f32({1, 16, 29, 31}).scaled({1, 2, 3}))
                .attr("kernel_shape", std::vector<int64_t>{3, 3})
                .attr("strides", std::vector<int64_t>{2, 2})
                .attr("pads", std::vector<int64_t>{1, 1, 1, 1})
                .variants({{"16x29x31", [](OpCase&) {}}, inputs_variant("64x112x112", {f32({1, 64, 112, 112})})})
                .expect_variant(Backend::cpu, "fast"));
  // The Indices output (both storage orders): oneDNN computes no indices, the reference runs it.
  std::vector<Variant> with_indices;
  for (Shape s : {Shape{1, 3, 7, 9}, Shape{2, 2, 11}, Shape{1, 2, 4, 5, 6}}) {
    const size_t nd = s.rank() - 2;
    with_indices.push_back({"x" + s.str(), [s, nd](OpCase& v) {
                              v.with_inputs({f32(s)})
                                  .attr("kernel_shape", std::vector<int64_t>(nd, 3))
                                  .attr("strides", std::vector<int64_t>(nd, 2))
                                  .attr("pads", std::vector<int64_t>(2 * nd, 1));
                            }});
  }
  cases.add(OpCase("MaxPool", "indices")
                .opset(19)
                .outputs(2)
                .variants(std::move(with_indices))
                .sweep("storage_order", {int64_t(0), int64_t(1)})
                .may_fall_back(Backend::cpu));
  cases.add(OpCase("AveragePool", "windows")
                .opset(19)
                .variants({pool_window({{1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""}),
                           pool_window({{1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 1, ""}),
                           pool_window({{1, 3, 7, 9}, {3, 2}, {2, 2}, {1, 1, 0, 1}, {}, 1, 1, ""}),
                           pool_window({{1, 3, 7, 9}, {3, 2}, {2, 2}, {1, 1, 0, 1}, {}, 1, 0, ""}),
                           pool_window({{1, 2, 7, 9}, {2, 3}, {2, 2}, {}, {}, 0, 1, "SAME_LOWER"}),
                           pool_window({{2, 5, 17, 13}, {3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 0, 0, ""}, true),
                           pool_window({{1, 3, 9, 11}, {3, 2}, {1, 1}, {1, 0, 2, 1}, {}, 0, 1, ""}, true)}));
  cases.add(OpCase("LpPool", "window")
                .opset(19)
                .variants({pool_window({{1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""})})
                .sweep("p", {int64_t(1), int64_t(2), int64_t(3)}));
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"})
    cases.add(OpCase(op, "ranks")
                  .in(f32({2, 3, 7, 9}))
                  .scale_last(2)
                  .variants({inputs_variant("2d", {f32({2, 3, 7, 9})}), inputs_variant("1d_long", {f32({1, 5, 300})}),
                             inputs_variant("3d", {f32({1, 2, 3, 4, 5})}),
                             inputs_variant("rows_over_1024", {f32({2, 3, 41, 57})})}));

  // MaxUnpool: [2,3,3,4] -> [2,3,6,8] (2x2 stride 2), [1,2,4,4] -> [1,2,7,7] (3x3 stride 2 pads 1),
  // 1-D; an explicit larger output_shape; int32 values.
  struct Unpool {
    Shape pooled, unpooled;
    std::vector<int64_t> kernel, strides, pads;
  };
  std::vector<Variant> unpools;
  for (const Unpool& u : {Unpool{{2, 3, 3, 4}, {2, 3, 6, 8}, {2, 2}, {2, 2}, {}},
                          Unpool{{1, 2, 4, 4}, {1, 2, 7, 7}, {3, 3}, {2, 2}, {1, 1, 1, 1}},
                          Unpool{{2, 2, 5}, {2, 2, 11}, {3}, {2}, {}}})
    for (bool output_shape : {false, true})
      unpools.push_back({cat(u.pooled.str(), output_shape ? "_output_shape" : ""), [u, output_shape](OpCase& v) {
                           v.with_inputs({f32(u.pooled), unpool_indices(u.pooled, u.unpooled)})
                               .attr("kernel_shape", u.kernel)
                               .attr("strides", u.strides);
                           if (!u.pads.empty()) v.attr("pads", u.pads);
                           if (output_shape) {
                             std::vector<int64_t> larger = u.unpooled.dims();
                             larger.back() += 2;
                             v.in(i64s(larger).constant());
                           }
                         }});
  unpools.push_back({"int32", [](OpCase& v) {
                       v.with_inputs({values({1, 1, 2, 2}, {-7, 3, 13, 23}, DType::i32), values({1, 1, 2, 2}, {0, 3, 9, 14}, DType::i64)})
                           .attr("kernel_shape", std::vector<int64_t>{2, 2})
                           .attr("strides", std::vector<int64_t>{2, 2});
                     }});
  cases.add(OpCase("MaxUnpool", "shapes_pads_output_shape").opset(11).variants(std::move(unpools)));
}

}  // namespace vx::optable
