// oneDNN 2.6 post-op chains on one 3x3 convolution: mode N appends a chain (see the ifs) and prints
// the first outputs. Modes 5-7: a second eltwise of the same algorithm runs with the first one's alpha
// and beta (5: linear(2) -> clip -> linear(3) gives 4x the raw output, not 6x); 10-12: pow(a, 1)
// equals linear(a, 0). Session 27: g++ -std=c++17 -O1 post_op_chains.cpp -ldnnl -o t && for m in 0 1 5 10; do ./t $m; done
// (ONEDNN_MAX_CPU_ISA=AVX2 for the AVX2 kernels).
#include <dnnl.hpp>
#include <cstdio>
#include <vector>
#include <cmath>
using namespace dnnl;
int main(int argc, char** argv) {
  engine eng(engine::kind::cpu, 0); stream s(eng);
  int C = 8, M = 6, H = 13, W = 11;
  memory::desc src({1, C, H, W}, memory::data_type::f32, memory::format_tag::nhwc);
  memory::desc wei({M, C, 3, 3}, memory::data_type::f32, memory::format_tag::any);
  memory::desc dst({1, M, H, W}, memory::data_type::f32, memory::format_tag::nhwc);
  post_ops po;
  int mode = atoi(argv[1]);
  if (mode == 0) { po.append_eltwise(1, algorithm::eltwise_linear, 50, 0); po.append_eltwise(1, algorithm::eltwise_round, 0, 0); po.append_eltwise(1, algorithm::eltwise_clip_v2, 0, 255); po.append_eltwise(1, algorithm::eltwise_linear, 0.02f, 0); }
  if (mode == 1) { po.append_eltwise(1, algorithm::eltwise_linear, 50, 0); po.append_eltwise(1, algorithm::eltwise_linear, 0.02f, 0); }
  if (mode == 2) { po.append_eltwise(1, algorithm::eltwise_linear, 50, 0); po.append_eltwise(1, algorithm::eltwise_clip_v2, 0, 255); po.append_eltwise(1, algorithm::eltwise_linear, 0.02f, 0); }
  if (mode == 3) { po.append_eltwise(1, algorithm::eltwise_linear, 50, 0); po.append_eltwise(1, algorithm::eltwise_round, 0, 0); po.append_eltwise(1, algorithm::eltwise_linear, 0.02f, 0); }
  if (mode == 4) { po.append_eltwise(1, algorithm::eltwise_relu, 0, 0); po.append_eltwise(1, algorithm::eltwise_linear, 50, 0); po.append_eltwise(1, algorithm::eltwise_round, 0, 0); po.append_eltwise(1, algorithm::eltwise_clip_v2, 0, 255); po.append_eltwise(1, algorithm::eltwise_linear, 0.02f, 0); }
  if (mode == 5) { po.append_eltwise(1, algorithm::eltwise_linear, 2, 0); po.append_eltwise(1, algorithm::eltwise_clip_v2, -1e9, 1e9); po.append_eltwise(1, algorithm::eltwise_linear, 3, 0); }
  if (mode == 6) { po.append_eltwise(1, algorithm::eltwise_linear, 2, 0); po.append_eltwise(1, algorithm::eltwise_clip_v2, -1e9, 1e9); po.append_eltwise(1, algorithm::eltwise_linear, 3, 1); }
  if (mode == 7) { po.append_eltwise(1, algorithm::eltwise_linear, 2, 0); po.append_eltwise(1, algorithm::eltwise_tanh, 0, 0); po.append_eltwise(1, algorithm::eltwise_linear, 3, 0); }
  if (mode == 8) { po.append_eltwise(1, algorithm::eltwise_linear, 6, 0); po.append_eltwise(1, algorithm::eltwise_round, 0, 0);}
  if (mode == 9) { po.append_eltwise(1, algorithm::eltwise_linear, 1, 0);}
  if (mode == 10) { po.append_eltwise(1, algorithm::eltwise_pow, 50, 1); po.append_eltwise(1, algorithm::eltwise_round, 0, 0); po.append_eltwise(1, algorithm::eltwise_clip_v2, -3, 4); po.append_eltwise(1, algorithm::eltwise_linear, 0.02f, 0); }
  if (mode == 11) { po.append_eltwise(1, algorithm::eltwise_pow, 50, 1);}
  if (mode == 12) { po.append_eltwise(1, algorithm::eltwise_linear, 50, 0);}
  primitive_attr attr; attr.set_post_ops(po);
  convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, dst, {1,1}, {1,1}, {1,1});
  convolution_forward::primitive_desc pd(d, attr, eng);
  std::vector<float> x(C*H*W), w(M*C*9), y(M*H*W);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(i * 0.37f);
  for (size_t i = 0; i < w.size(); ++i) w[i] = 0.1f * std::cos(i * 0.11f);
  memory xm(src, eng, x.data()), wm0({{M, C, 3, 3}, memory::data_type::f32, memory::format_tag::oihw}, eng, w.data()), ym(dst, eng, y.data());
  memory wm(pd.weights_desc(), eng); reorder(wm0, wm).execute(s, wm0, wm);
  convolution_forward(pd).execute(s, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, ym}});
  s.wait();
  printf("%s: ", pd.impl_info_str()); for (int i = 0; i < 6; ++i) printf("%.9g ", y[i]); printf("\n");
}
