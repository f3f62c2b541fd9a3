// ResNet-50's stem (3 -> 64, 7x7 stride 2, pad 3, 224 -> 112) on oneDNN with bias + ReLU: source and
// destination formats against each other, 2 threads.
#include <dnnl.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag;
double bench(tag ts, tag td, std::string& impl, int ci = 3, int co = 64, int k = 7, int s = 2, int h = 224) {
  engine eng(engine::kind::cpu, 0); stream st(eng);
  const int p = k / 2, ho = (h + 2 * p - k) / s + 1;
  memory::desc src({1, ci, h, h}, memory::data_type::f32, ts);
  memory::desc wei({co, ci, k, k}, memory::data_type::f32, tag::any);
  memory::desc bia({co}, memory::data_type::f32, tag::x);
  memory::desc dst({1, co, ho, ho}, memory::data_type::f32, td);
  post_ops po; po.append_eltwise(1, algorithm::eltwise_relu, 0, 0);
  primitive_attr attr; attr.set_post_ops(po);
  convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, bia, dst, {s, s}, {p, p}, {p, p});
  convolution_forward::primitive_desc pd(d, attr, eng);
  impl = pd.impl_info_str(); std::printf("  [%s]\n", impl.c_str()); std::fflush(stdout); if (impl.find("ref") != std::string::npos) return -1;
  memory xm(src, eng), wm(pd.weights_desc(), eng), bm(bia, eng), ym(pd.dst_desc(), eng);
  std::fill((float*)xm.get_data_handle(), (float*)xm.get_data_handle() + ci * h * h, 0.5f);
  convolution_forward conv(pd);
  std::vector<double> times;
  for (int i = 0; i < 60; ++i) {
    auto a = std::chrono::steady_clock::now();
    conv.execute(st, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, ym}});
    st.wait();
    auto b = std::chrono::steady_clock::now();
    if (i >= 10) times.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}
int main() {
  struct { tag s, d; const char* name; } cfg[] = {
      {tag::nhwc, tag::nhwc, "nhwc->nhwc"}, {tag::nchw, tag::nhwc, "nchw->nhwc"}, {tag::nchw, tag::nChw16c, "nchw->nChw16c"},
      {tag::nchw, tag::nChw8c, "nchw->nChw8c"}, {tag::nhwc, tag::nChw16c, "nhwc->nChw16c"}};
  for (int round = 0; round < 2; ++round)
    for (auto& c : cfg) {
      std::string impl;
      double t = bench(c.s, c.d, impl);
      std::printf("%-16s %.3f ms  %s\n", c.name, t, impl.c_str()); std::fflush(stdout);
    }
}
