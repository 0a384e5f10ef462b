// Exp-family ops for MLX's CPU backend: softmax (plain and causal), logsumexp, SwiGLU and sigmoid, float32, and
// the gradients of the softmax, logsumexp and SwiGLU, each fused into one pass.
//
// MLX's CPU backend computes exp one element at a time on x86. These primitives compute e^x with range reduction
// and a short polynomial in straight-line code, which the compiler vectorises (-O3 -march=native), and they stay
// inside MLX's lazy graph: nothing is evaluated early, so memory behaves as with MLX's own ops. Gradients are not
// defined here; nanoagent/numpy_ops.py wraps each op in an mx.custom_function with its analytic vjp (the two
// gradient kernels below are what those vjps call).
//
// Built by `python -m nanoagent.native.build` (CMakeLists.txt beside this file); loaded by nanoagent/native.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <nanobind/nanobind.h>
#include <nanobind/stl/vector.h>

#include "mlx/backend/cpu/encoder.h"
#include "mlx/mlx.h"
#include "mlx/primitives.h"

namespace mx = mlx::core;
namespace nb = nanobind;

namespace {

constexpr float kLowest = -86.6f;   // below it e^x is under 2^-124: flushed to 0 (so -inf gives 0)
constexpr float kHighest = 88.72f;  // above it e^x overflows float: inf

// e^x = 2^n * e^r with n = round(x / ln 2) and |r| <= ln 2 / 2; e^r by its Taylor polynomial to r^6 (relative error
// about 1e-7 over that range); 2^(n-1) written straight into the exponent bits (n - 1 keeps n = 128 representable),
// then doubled.
inline float fast_exp(float x) {
  float c = x < kLowest ? kLowest : (x > kHighest ? kHighest : x);
  float n = std::nearbyint(c * 1.44269504088896341f);
  float r = c - n * 0.693145751953125f - n * 1.428606765330187e-06f;  // ln 2 split in two for precision
  float p = 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 126) << 23;
  float half_scale;
  std::memcpy(&half_scale, &bits, sizeof half_scale);
  float e = p * half_scale * 2.0f;
  return x < kLowest ? 0.0f : (x > kHighest ? INFINITY : e);
}

// Softmax of each row of n; with `block` > 0, row r sees only its first n - block + (r % block) + 1 entries (mlx-lm's
// "causal" mask: the last `block` key positions are the new queries') and the rest is written as 0.
void softmax_rows(const float* x, float* y, int64_t rows, int64_t n, int64_t block) {
  for (int64_t row = 0; row < rows; ++row) {
    const float* a = x + row * n;
    float* b = y + row * n;
    int64_t seen = block > 0 ? n - block + (row % block) + 1 : n;
    if (seen > n) seen = n;
    if (seen < 0) seen = 0;
    float m = -INFINITY;
    for (int64_t j = 0; j < seen; ++j) m = a[j] > m ? a[j] : m;
    if (m == -INFINITY) {  // nothing visible (or every score -inf): zeros, as a softmax of nothing
      for (int64_t j = 0; j < n; ++j) b[j] = 0.0f;
      continue;
    }
    float s = 0.0f;
    for (int64_t j = 0; j < seen; ++j) {
      float e = fast_exp(a[j] - m);
      b[j] = e;
      s += e;
    }
    float inv = 1.0f / s;
    for (int64_t j = 0; j < seen; ++j) b[j] *= inv;
    for (int64_t j = seen; j < n; ++j) b[j] = 0.0f;
  }
}

void logsumexp_rows(const float* x, float* y, int64_t rows, int64_t n) {
  for (int64_t row = 0; row < rows; ++row) {
    const float* a = x + row * n;
    float m = -INFINITY;
    for (int64_t j = 0; j < n; ++j) m = a[j] > m ? a[j] : m;
    if (!std::isfinite(m)) {  // all -inf gives -inf; +inf or NaN propagate
      y[row] = m;
      continue;
    }
    float s = 0.0f;
    for (int64_t j = 0; j < n; ++j) s += fast_exp(a[j] - m);
    y[row] = m + std::log(s);
  }
}

// The softmax's gradient from its output y and the cotangent c, row by row: y * (c - sum(c * y)).
void softmax_grad_rows(const float* y, const float* c, float* dx, int64_t rows, int64_t n) {
  for (int64_t row = 0; row < rows; ++row) {
    const float* yr = y + row * n;
    const float* cr = c + row * n;
    float* d = dx + row * n;
    float dot = 0.0f;
    for (int64_t j = 0; j < n; ++j) dot += yr[j] * cr[j];
    for (int64_t j = 0; j < n; ++j) d[j] = yr[j] * (cr[j] - dot);
  }
}

// logsumexp's gradient: e^(x - lse) * c for each row's entries (lse and c hold one value per row).
void logsumexp_grad_rows(const float* x, const float* lse, const float* c, float* dx, int64_t rows, int64_t n) {
  for (int64_t row = 0; row < rows; ++row) {
    const float* a = x + row * n;
    float* d = dx + row * n;
    float l = lse[row], w = c[row];
    if (!std::isfinite(l)) {  // a row of -inf has no gradient; +inf or NaN carry NaN as MLX's would
      for (int64_t j = 0; j < n; ++j) d[j] = l == -INFINITY ? 0.0f : NAN;
      continue;
    }
    for (int64_t j = 0; j < n; ++j) d[j] = fast_exp(a[j] - l) * w;
  }
}

// silu(g) * u = g * u / (1 + e^-g); with u == nullptr, the sigmoid 1 / (1 + e^-g).
void swiglu_elements(const float* g, const float* u, float* y, int64_t size) {
  if (u == nullptr) {
    for (int64_t i = 0; i < size; ++i) y[i] = 1.0f / (1.0f + fast_exp(-g[i]));
  } else {
    for (int64_t i = 0; i < size; ++i) y[i] = g[i] * u[i] / (1.0f + fast_exp(-g[i]));
  }
}

// SwiGLU's gradient in one pass: with s = sigmoid(g) and the cotangent c, dg = c * u * s * (1 + g * (1 - s)) and
// du = c * g * s.
void swiglu_grad_elements(const float* g, const float* u, const float* c, float* dg, float* du, int64_t size) {
  for (int64_t i = 0; i < size; ++i) {
    float s = 1.0f / (1.0f + fast_exp(-g[i]));
    float cs = c[i] * s;
    dg[i] = cs * u[i] * (1.0f + g[i] * (1.0f - s));
    du[i] = cs * g[i];
  }
}

class SwiGLUGrad : public mx::Primitive {
 public:
  explicit SwiGLUGrad(mx::Stream s) : mx::Primitive(s) {}

  void eval_cpu(const std::vector<mx::array>& inputs, std::vector<mx::array>& outputs) override {
    auto& encoder = mx::cpu::get_command_encoder(stream());
    for (auto& a : inputs) encoder.set_input_array(a);
    for (auto& o : outputs) {
      o.set_data(mx::allocator::malloc(o.nbytes()));
      encoder.set_output_array(o);
    }
    const float* g = inputs[0].data<float>();
    const float* u = inputs[1].data<float>();
    const float* c = inputs[2].data<float>();
    float* dg = outputs[0].data<float>();
    float* du = outputs[1].data<float>();
    int64_t size = inputs[0].size();
    encoder.dispatch([=]() { swiglu_grad_elements(g, u, c, dg, du, size); });
  }

  void eval_gpu(const std::vector<mx::array>&, std::vector<mx::array>&) override {
    throw std::runtime_error("nanoagent's native exp-family ops run on the CPU only");
  }

  const char* name() const override { return "NanoagentSwiGLUGrad"; }
  bool is_equivalent(const mx::Primitive&) const override { return true; }
};

enum class Kind { Softmax, CausalSoftmax, LogSumExp, SwiGLU, Sigmoid, SoftmaxGrad, LogSumExpGrad };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Softmax: return "NanoagentSoftmax";
    case Kind::CausalSoftmax: return "NanoagentCausalSoftmax";
    case Kind::LogSumExp: return "NanoagentLogSumExp";
    case Kind::SwiGLU: return "NanoagentSwiGLU";
    case Kind::SoftmaxGrad: return "NanoagentSoftmaxGrad";
    case Kind::LogSumExpGrad: return "NanoagentLogSumExpGrad";
    default: return "NanoagentSigmoid";
  }
}

class ExpOp : public mx::UnaryPrimitive {
 public:
  ExpOp(mx::Stream s, Kind kind) : mx::UnaryPrimitive(s), kind_(kind) {}

  void eval_cpu(const std::vector<mx::array>& inputs, mx::array& out) override {
    out.set_data(mx::allocator::malloc(out.nbytes()));
    auto& encoder = mx::cpu::get_command_encoder(stream());
    for (auto& a : inputs) encoder.set_input_array(a);
    encoder.set_output_array(out);
    const mx::array& x = inputs[0];
    const float* xp = x.data<float>();
    float* yp = out.data<float>();
    int64_t n = x.ndim() ? x.shape(-1) : 1;
    int64_t rows = n ? static_cast<int64_t>(x.size()) / n : 0;
    switch (kind_) {
      case Kind::Softmax:
        encoder.dispatch([=]() { softmax_rows(xp, yp, rows, n, 0); });
        break;
      case Kind::CausalSoftmax: {
        int64_t block = x.ndim() >= 2 ? x.shape(-2) : 1;
        encoder.dispatch([=]() { softmax_rows(xp, yp, rows, n, block); });
        break;
      }
      case Kind::LogSumExp:
        encoder.dispatch([=]() { logsumexp_rows(xp, yp, rows, n); });
        break;
      case Kind::SwiGLU: {
        const float* up = inputs[1].data<float>();
        int64_t size = x.size();
        encoder.dispatch([=]() { swiglu_elements(xp, up, yp, size); });
        break;
      }
      case Kind::Sigmoid: {
        int64_t size = x.size();
        encoder.dispatch([=]() { swiglu_elements(xp, nullptr, yp, size); });
        break;
      }
      case Kind::SoftmaxGrad: {
        const float* cp = inputs[1].data<float>();
        encoder.dispatch([=]() { softmax_grad_rows(xp, cp, yp, rows, n); });
        break;
      }
      case Kind::LogSumExpGrad: {
        const float* lp = inputs[1].data<float>();
        const float* cp = inputs[2].data<float>();
        encoder.dispatch([=]() { logsumexp_grad_rows(xp, lp, cp, yp, rows, n); });
        break;
      }
    }
  }

  void eval_gpu(const std::vector<mx::array>&, mx::array&) override {
    throw std::runtime_error("nanoagent's native exp-family ops run on the CPU only");
  }

  const char* name() const override { return kind_name(kind_); }

  bool is_equivalent(const mx::Primitive& other) const override {
    return kind_ == static_cast<const ExpOp&>(other).kind_;
  }

 private:
  Kind kind_;
};

mx::array checked(const mx::array& a, const char* op) {
  if (a.dtype() != mx::float32) {
    throw std::invalid_argument(std::string(op) + ": float32 arrays only");
  }
  return mx::contiguous(a, false, mx::Device::cpu);
}

mx::array make(Kind kind, mx::Shape shape, std::vector<mx::array> inputs) {
  return mx::array(std::move(shape), mx::float32,
                   std::make_shared<ExpOp>(mx::default_stream(mx::Device::cpu), kind), std::move(inputs));
}

mx::array softmax(const mx::array& x) {
  auto c = checked(x, "softmax");
  return make(Kind::Softmax, c.shape(), {c});
}

mx::array causal_softmax(const mx::array& x) {
  if (x.ndim() < 2) throw std::invalid_argument("causal_softmax: needs (..., L, S) scores");
  auto c = checked(x, "causal_softmax");
  return make(Kind::CausalSoftmax, c.shape(), {c});
}

mx::array logsumexp(const mx::array& x) {
  if (x.ndim() < 1) throw std::invalid_argument("logsumexp: needs at least one axis");
  auto c = checked(x, "logsumexp");
  mx::Shape shape(c.shape().begin(), c.shape().end() - 1);
  return make(Kind::LogSumExp, shape, {c});
}

mx::array swiglu(const mx::array& gate, const mx::array& up) {
  if (gate.shape() != up.shape()) throw std::invalid_argument("swiglu: gate and up must have one shape");
  auto g = checked(gate, "swiglu");
  auto u = checked(up, "swiglu");
  return make(Kind::SwiGLU, g.shape(), {g, u});
}

mx::array softmax_grad(const mx::array& y, const mx::array& c) {
  if (y.shape() != c.shape()) throw std::invalid_argument("softmax_grad: output and cotangent must have one shape");
  auto yc = checked(y, "softmax_grad");
  auto cc = checked(c, "softmax_grad");
  return make(Kind::SoftmaxGrad, yc.shape(), {yc, cc});
}

mx::array logsumexp_grad(const mx::array& x, const mx::array& out, const mx::array& c) {
  mx::Shape rows(x.shape().begin(), x.shape().end() - (x.ndim() ? 1 : 0));
  if (x.ndim() < 1 || out.shape() != rows || c.shape() != rows) {
    throw std::invalid_argument("logsumexp_grad: needs (..., n) inputs and (...) output and cotangent");
  }
  auto xc = checked(x, "logsumexp_grad");
  return make(Kind::LogSumExpGrad, xc.shape(), {xc, checked(out, "logsumexp_grad"), checked(c, "logsumexp_grad")});
}

std::vector<mx::array> swiglu_grad(const mx::array& gate, const mx::array& up, const mx::array& c) {
  if (gate.shape() != up.shape() || gate.shape() != c.shape()) {
    throw std::invalid_argument("swiglu_grad: gate, up and cotangent must have one shape");
  }
  auto g = checked(gate, "swiglu_grad");
  return mx::array::make_arrays({g.shape(), g.shape()}, {mx::float32, mx::float32},
                                std::make_shared<SwiGLUGrad>(mx::default_stream(mx::Device::cpu)),
                                {g, checked(up, "swiglu_grad"), checked(c, "swiglu_grad")});
}

mx::array sigmoid(const mx::array& x) {
  auto c = checked(x, "sigmoid");
  return make(Kind::Sigmoid, c.shape(), {c});
}

}  // namespace

NB_MODULE(_ops, m) {
  m.doc() = "nanoagent's vectorised exp-family ops for MLX on the CPU (float32; forward only)";
  m.def("softmax", &softmax, nb::arg("x"), "Softmax over the last axis.");
  m.def("causal_softmax", &causal_softmax, nb::arg("x"),
        "Softmax of (..., L, S) scores under mlx-lm's causal mask (query i sees keys up to S - L + i).");
  m.def("logsumexp", &logsumexp, nb::arg("x"), "log(sum(exp(x))) over the last axis.");
  m.def("swiglu", &swiglu, nb::arg("gate"), nb::arg("up"), "silu(gate) * up.");
  m.def("sigmoid", &sigmoid, nb::arg("x"), "1 / (1 + exp(-x)).");
  m.def("swiglu_grad", &swiglu_grad, nb::arg("gate"), nb::arg("up"), nb::arg("c"),
        "SwiGLU's vjp: (d gate, d up) for the cotangent c, in one pass.");
  m.def("softmax_grad", &softmax_grad, nb::arg("y"), nb::arg("c"),
        "The softmax's vjp from its output y and cotangent c over the last axis: y * (c - sum(c * y)).");
  m.def("logsumexp_grad", &logsumexp_grad, nb::arg("x"), nb::arg("out"), nb::arg("c"),
        "logsumexp's vjp: exp(x - out[..., None]) * c[..., None].");
}
