// ResNet-50's stem (3 -> 64, 7x7 / 2, ReLU) on oneDNN 2.6 in four source / destination layouts, 60 runs,
// the median of the last 50. Session 27: g++ -std=c++17 -O2 stem_layouts.cpp -ldnnl -o stem && OMP_NUM_THREADS=2 ./stem
#include <dnnl.hpp>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>
using namespace dnnl;
using tag = memory::format_tag;
double bench(tag st, tag dt, const char* name) {
  engine eng(engine::kind::cpu, 0); stream s(eng);
  memory::desc src({1, 3, 224, 224}, memory::data_type::f32, st);
  memory::desc wei({64, 3, 7, 7}, memory::data_type::f32, tag::any);
  memory::desc bia({64}, memory::data_type::f32, tag::x);
  memory::desc dst({1, 64, 112, 112}, memory::data_type::f32, dt);
  post_ops po; po.append_eltwise(1, algorithm::eltwise_relu, 0, 0);
  primitive_attr attr; attr.set_post_ops(po);
  convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, bia, dst, {2,2}, {3,3}, {3,3});
  convolution_forward::primitive_desc pd(d, attr, eng);
  memory xm(src, eng), wm(pd.weights_desc(), eng), bm(bia, eng), ym(pd.dst_desc(), eng);
  convolution_forward conv(pd);
  std::vector<double> t;
  for (int i = 0; i < 60; ++i) {
    auto a = std::chrono::steady_clock::now();
    conv.execute(s, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, ym}}); s.wait();
    auto b = std::chrono::steady_clock::now();
    if (i >= 10) t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(t.begin(), t.end());
  printf("%-28s %-24s median %.3f min %.3f ms\n", name, pd.impl_info_str(), t[t.size()/2], t[0]);
  return t[t.size()/2];
}
int main() {
  for (int r = 0; r < 2; ++r) {
  bench(tag::nhwc, tag::nhwc, "nhwc->nhwc");
  bench(tag::nchw, tag::nChw16c, "nchw->nChw16c");
  bench(tag::nchw, tag::nhwc, "nchw->nhwc");
  bench(tag::nchw, tag::nChw8c, "nchw->nChw8c");
  }
}
