// The GEMM suite (issue 13): C = alpha A B + beta C for a problem `N` or `MxNxK` (with :NN or
// :TN), one point per backend x variant x precision, each call timed and its C verified
// (gemm.hpp: the reference where it is cheap, else Freivalds' check and sampled elements).
#include <algorithm>
#include <string>
#include <cstdlib>
#include <memory>

#include "bench/suite.hpp"
#include "bench/tunable.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "kernels/gemm/gemm.hpp"
#include "kernels/gemm/gemv.hpp"
#include "kernels/gemm/operations.hpp"
#include "kernels/launch_grid.hpp"
#include "common/test_hooks.hpp"

namespace gpubench::gemm {

bool thin(const Shape& s, const DeviceInfo& device) {
  if (degenerate(s) || s.k < thin_min_k) return false;
  const std::int64_t blocks = ((s.m + 63) / 64) * ((s.n + 63) / 64);
  return blocks < 4 * std::max<std::int64_t>(device.compute_units, 1);
}

TunableSpace tuned_space(const DeviceInfo& device, Precision p, std::int64_t split_k) {
  const std::size_t element = bytes_of(p);
  const std::size_t largest = device.max_work_group_size, local = device.local_mem_bytes;
  TunableSpace space{{Tunable::list("bm", {32, 64, 128, 256}), Tunable::list("bn", {32, 64, 128, 256}),
                      Tunable::list("bk", {8, 16, 32}), Tunable::list("tm", {4, 8}), Tunable::list("tn", {4, 8}),
                      Tunable::list("vw", {1, 2, 4}),
                      split_k > 0 ? Tunable::list("splitk", {1, 2, 4, 8}) : Tunable::list("splitk", {1})},
                     {}};
  if (split_k > 0)
    space.constraints.push_back({"each of the splitk shares of K = " + std::to_string(split_k) + " at least 2 bk steps",
                                 [split_k](const Params& q) { return 2 * q.at("splitk") * q.at("bk") <= split_k || q.at("splitk") == 1; }});
  space.constraints.push_back({"32 <= (bm/tm)(bn/tn) <= " + std::to_string(largest) + " work-items per group",
                               [largest](const Params& q) {
                                 const auto t = static_cast<std::size_t>(tuned_config(q).threads());
                                 return t >= 32 && t <= largest;
                               }});
  space.constraints.push_back({"tm tn <= 64 accumulators per work-item",
                               [](const Params& q) { return q.at("tm") * q.at("tn") <= 64; }});
  space.constraints.push_back({"vw x " + std::to_string(element) + " bytes <= 16 (one vector load)",
                               [element](const Params& q) { return static_cast<std::size_t>(q.at("vw")) * element <= 16; }});
  space.constraints.push_back({"whole vectors: vw divides bk, bm and bn, and every item loads as many of A's and B's",
                               [](const Params& q) { return tuned_config(q).whole_vectors(); }});
  space.constraints.push_back({"2 bk (bm + bn) x " + std::to_string(element) +
                                   " bytes <= the device's " + std::to_string(local) + " bytes of local memory",
                               [element, local](const Params& q) { return tuned_config(q).local_bytes(element) <= local; }});
  return space;
}

int tensor_shared_limit(const DeviceInfo& device) {
  if (device.backend == "opencl" && device.local_mem_bytes > 0)
    return static_cast<int>(std::min<std::uint64_t>(device.local_mem_bytes, gemm_tc::max_shared));
  return gemm_tc::max_shared;
}

int tensor_block_bytes(const DeviceInfo& device, const gemm_tc::Shape& s) {
  return device.backend == "opencl" ? s.local_bytes() : s.shared_bytes();
}

TunableSpace tensor_space(const DeviceInfo& device) {
  const bool opencl = device.backend == "opencl";  // no __launch_bounds__ there: minb 1
  const int shared = tensor_shared_limit(device);
  TunableSpace space{{Tunable::list("bm", {32, 64, 128, 256}), Tunable::list("bn", {32, 64, 128, 256}),
                      Tunable::list("bk", {16, 32, 64}), Tunable::list("stages", {2, 3, 4, 5, 6}),
                      Tunable::list("wm", {1, 2, 4}), Tunable::list("wn", {1, 2, 4}), Tunable::list("unroll", {1, 2, 4}),
                      opencl ? Tunable::list("minb", {1}) : Tunable::list("minb", {1, 2, 3, 4}),
                      Tunable::list("splitk", {1, 2, 4, 8})},
                     {}};
  space.constraints.push_back({"whole m16n8 tiles per warp: 16 wm divides bm, 8 wn divides bn",
                               [](const Params& q) { return q.at("bm") % (16 * q.at("wm")) == 0 && q.at("bn") % (8 * q.at("wn")) == 0; }});
  space.constraints.push_back({"2 to 16 warps", [](const Params& q) { return q.at("wm") * q.at("wn") >= 2; }});
  space.constraints.push_back({"every thread copies as many pairs of A's and B's slices",
                               [](const Params& q) { return gemm_tc::legal(tensor_config(q)); }});
  space.constraints.push_back({"unroll divides bk / 16", [](const Params& q) { return (q.at("bk") / 16) % q.at("unroll") == 0; }});
  space.constraints.push_back({"at most 16 m16n8 tiles (64 accumulators) a thread, and 16 x 256 over the block",
                               [](const Params& q) {
                                 const gemm_tc::Shape t = tensor_config(q);
                                 return t.tiles() <= 16 && t.tiles() * t.threads() <= 16 * 256;
                               }});
  space.constraints.push_back({opencl ? "stages (bm + bn) bk x 8 bytes <= " + std::to_string(shared) +
                                            " bytes of the device's local memory"
                                      : "stages (bm + bn + 8) bk x 8 bytes <= " + std::to_string(shared) +
                                            " bytes of shared memory (compute capability 9.0)",
                               [shared, device](const Params& q) { return tensor_block_bytes(device, tensor_config(q)) <= shared; }});
  space.constraints.push_back({"minb blocks fit an SM: their shared memory (and 1 KiB each) <= " +
                                   std::to_string(gemm_tc::sm_shared) + " bytes, their threads <= 2048, and minb 1 "
                                   "where the registers allow no more than one",
                               [](const Params& q) {
                                 const gemm_tc::Shape t = tensor_config(q);
                                 return t.minb * (t.shared_bytes() + 1024) <= gemm_tc::sm_shared &&
                                        t.minb * t.threads() <= 2048 && (t.minb == 1 || t.tiles() * t.threads() * t.minb <= 16 * 256);
                               }});
  return space;
}

namespace {

// Not 1 and 0, so that a kernel that drops alpha or beta fails verification.
constexpr double alpha = 1.25, beta = 0.5;
// Above this m n k the check is Freivalds' and sampled elements, not the whole reference.
constexpr double reference_limit = 2e8;

// The tiled kernel's tile: the study's three sizes, 32 unless the tuning database says otherwise.
TunableSpace tile_space() { return {{Tunable::list("tile", {8, 16, 32})}, {}}; }
Params tile_heuristic() { return {{"tile", 32}}; }

// Clang's OpenMP tuned kernel (omp_target_tuned.h): a thread's tm x tn block of C, its team's
// work_group_size threads in warps_m warps down C's rows. The heuristic: 4 x 4 blocks, 256 threads
// in 2 x 4 warps.
TunableSpace omp_tuned_space(const DeviceInfo& device) {
  TunableSpace space{{Tunable::list("tm", {2, 4, 8}), Tunable::list("tn", {2, 4, 8}),
                      grid::group_size(static_cast<int>(std::max<std::size_t>(device.max_work_group_size, 32))),
                      Tunable::list("warps_m", {1, 2, 4, 8})},
                     {}};
  space.constraints.push_back({"tm tn <= 32 accumulators a thread (8 x 8 spills to the stack on Clang 19)",
                               [](const Params& q) { return q.at("tm") * q.at("tn") <= 32; }});
  space.constraints.push_back({"warps_m divides the work_group_size / 32 warps", [](const Params& q) {
                                 return q.at("work_group_size") >= 32 && (q.at("work_group_size") / 32) % q.at("warps_m") == 0;
                               }});
  return space;
}
Params omp_tuned_heuristic() { return {{"tm", 4}, {"tn", 4}, {"work_group_size", 256}, {"warps_m", 2}}; }
// Clang's OpenMP tensor kernel (omp_target_tensor.h): CUDA's tensor variant's names, the
// configurations the module builds (within the 48 KB of team memory LLVM 19's runtime gives a
// kernel); the heuristic 64 x 64 blocks of 2 x 2 warps in two stages.
TunableSpace omp_tensor_space() {
  TunableSpace space{{Tunable::list("bm", {32, 64}), Tunable::list("bn", {32, 64}), Tunable::list("wm", {2}),
                      Tunable::list("wn", {2, 4}), Tunable::list("stages", {2, 3})},
                     {}};
  space.constraints.push_back({"a configuration Clang's module builds: 64 x 64 of 2 x 2 or 2 x 4 warps in 2 stages, "
                               "32 x 64 and 64 x 32 of 2 x 2 in 3 (48 KB of team memory)",
                               [](const Params& q) {
                                 const auto bm = q.at("bm"), bn = q.at("bn"), wn = q.at("wn"), st = q.at("stages");
                                 if (bm == 64 && bn == 64) return st == 2;
                                 return bm + bn == 96 && wn == 2 && st == 3;
                               }});
  return space;
}
Params omp_tensor_heuristic() { return {{"bm", 64}, {"bn", 64}, {"wm", 2}, {"wn", 2}, {"stages", 2}}; }
// The packed loop's depth kc. The heuristic 256: with 8 x 24 tiles (AVX-512 f64) B's strip is 48 KiB, best or within 3% of
// it on a 2-core AVX-512 Xeon at 2048 (2026-12-07; 512 was best with the 8 x 16 tiles before it).
TunableSpace packed_space() { return {{Tunable::list("kc", {128, 192, 256, 384, 512})}, {}}; }
Params packed_heuristic() { return {{"kc", 256}}; }


Params params_of(const gemm_tc::Shape& t, int splitk) {
  return {{"bm", t.bm}, {"bn", t.bn}, {"bk", t.bk}, {"stages", t.stages}, {"wm", t.wm},
          {"wn", t.wn}, {"unroll", t.unroll}, {"minb", t.minb}, {"splitk", splitk}};
}

// The first tensor kernel's 128 x 128 blocks where C has enough of them to give every SM one and
// the device the shared memory (128 x 64 in two 16-deep stages where 48 KiB is all there is);
// else 64 x 64 blocks of 4 warps (16-deep slices in two stages within 48 KiB), and K split in up
// to 8 shares (of two slices or more) until every SM has a block.
Params tensor_heuristic(const Shape& s, const DeviceInfo& device) {
  const auto blocks = [&](int b) { return ((s.m + b - 1) / b) * ((s.n + b - 1) / b); };
  const std::int64_t sms = std::max(1, device.compute_units);
  const int shared = tensor_shared_limit(device);
  if (blocks(128) >= sms && tensor_block_bytes(device, gemm_tc::preferred) <= shared)
    return params_of(gemm_tc::preferred, 1);
  if (blocks(128) >= sms && tensor_block_bytes(device, gemm_tc::preferred_local) <= shared)
    return params_of(gemm_tc::preferred_local, 1);
  gemm_tc::Shape small{64, 64, 32, 3, 2, 2, 1, 1};
  if (tensor_block_bytes(device, small) > shared) small = gemm_tc::small_local;  // NVIDIA OpenCL's 48 KB
  int splitk = 1;
  while (splitk < 8 && blocks(64) * splitk < sms && s.k >= 2 * 2 * splitk * small.bk) splitk *= 2;
  return params_of(small, splitk);
}

Params params_of(const TunedConfig& c, int splitk = 1) {
  return {{"bm", c.bm}, {"bn", c.bn}, {"bk", c.bk}, {"tm", c.tm}, {"tn", c.tn}, {"vw", c.vw}, {"splitk", splitk}};
}

// 128 x 128 blocks of 8 x 8 per item, 16-byte loads; 64 x 64 blocks where C has too few 128 x 128
// blocks to fill a large GPU. A thin C (the space splits K): 64 x 128 blocks (128 x 64 where n is
// the smaller side) of the same 8 x 8 items, K split until the blocks are 4 a compute unit. The
// first legal configuration where the device allows none of these.
Params tuned_heuristic(const Shape& s, Precision p, const TunableSpace& space, const DeviceInfo& device) {
  const bool f32 = p == Precision::f32;
  const int vw = f32 ? 4 : 2;
  if (space.find("splitk")->values.size() > 1) {
    const TunedConfig c = s.m <= s.n ? TunedConfig{64, 128, 8, 8, 8, vw} : TunedConfig{128, 64, 8, 8, 8, vw};
    const std::int64_t blocks = ((s.m + c.bm - 1) / c.bm) * ((s.n + c.bn - 1) / c.bn);
    const std::int64_t wanted = 4 * std::max<std::int64_t>(device.compute_units, 1);
    int splitk = 1;
    while (splitk < 8 && blocks * splitk < wanted && space.legal(params_of(c, splitk * 2))) splitk *= 2;
    if (space.legal(params_of(c, splitk))) return params_of(c, splitk);
  }
  const bool small = static_cast<double>(s.m) * static_cast<double>(s.n) < 256.0 * 128 * 128;
  const TunedConfig preferred = small ? (f32 ? TunedConfig{64, 64, 16, 4, 4, 4} : TunedConfig{64, 64, 8, 4, 4, 2})
                                      : (f32 ? TunedConfig{128, 128, 8, 8, 8, 4} : TunedConfig{128, 128, 8, 8, 8, 2});
  if (space.legal(params_of(preferred))) return params_of(preferred);
  const auto legal = space.enumerate(1);
  if (legal.empty()) throw DeviceError("no configuration of the tuned GEMM kernel fits this device");
  return legal.front();
}

// Whether `v` on `device` runs the kernels shared by the APIs that dispatch per shape class
// (BackendTraits::shape_classes: degenerate shapes to gemv.h, a thin C to a split K).
bool shape_classes(Variant v, const DeviceInfo& device) {
  const BackendTraits* traits = backend_traits(device.backend);
  return (v == Variant::tuned || v == Variant::tensor) && traits && traits->shape_classes;
}

// A thin C where `v` on `device` dispatches per shape class: its own key, K split (tuned).
bool thin_class(Variant v, const Shape& s, const DeviceInfo& device) { return shape_classes(v, device) && thin(s, device); }

// Where the tuning database keeps a kernel's configuration: per kernel, precision, size bucket
// and layout. A transposed (TN) is a shape class of its own ("tensor:TN"): its slices load
// along other strides, so its best configuration may differ. So is a thin C ("tuned:thin",
// thin()): its blocks are few and K may be split, and a square size's entry, whose tiles leave
// most of the device idle there, is never its nearest size (issue 59: 64 x 8000 x 8000 borrowed
// 8192's 128 x 128 blocks, 63 of them for 132 SMs).
TuningKey key_of(Variant v, const Shape& s, Precision p, const DeviceInfo& device) {
  const std::string kernel = to_string(v) + (thin_class(v, s, device) ? ":thin" : "") + (s.transpose_a ? ":TN" : "");
  return TuningKey::of_sizes("gemm", kernel, p, {{"m", s.m}, {"n", s.n}, {"k", s.k}});
}

// A tunable variant's space and heuristic on `device`.
struct Tuning {
  TunableSpace space;
  Params heuristic;
};
Tuning tuning_of(Variant v, const DeviceInfo& device, const Shape& s, Precision p) {
  if (v == Variant::tiled && device.backend.starts_with("omp_target")) {  // GCC's and Clang's
    // OpenMP offload's tiled loop: the tile and the threads of each tile's team (thread_limit).
    TunableSpace space = tile_space();
    space.params.push_back(grid::group_size(static_cast<int>(std::max<std::size_t>(device.max_work_group_size, 1))));
    Params heuristic = tile_heuristic();
    heuristic["work_group_size"] = grid::default_group_size;
    return {std::move(space), std::move(heuristic)};
  }
  // A degenerate shape (matrix-vector, outer product): memory-bound kernels of its own where the
  // backend has them (issue 59 item 3), their space in the tuning database under its shape class.
  if (shape_classes(v, device) && degenerate(s)) return {gemv_space(), gemv_heuristic()};
  if (v == Variant::tuned && device.backend.starts_with("omp_target")) return {omp_tuned_space(device), omp_tuned_heuristic()};
  if (v == Variant::tensor && device.backend.starts_with("omp_target")) return {omp_tensor_space(), omp_tensor_heuristic()};
  if (v == Variant::tiled) return {tile_space(), tile_heuristic()};
  if (v == Variant::tensor) return {tensor_space(device), tensor_heuristic(s, device)};
  if (v == Variant::packed) return {packed_space(), packed_heuristic()};
  TunableSpace space = tuned_space(device, p, thin_class(v, s, device) ? s.k : 0);
  Params heuristic = tuned_heuristic(s, p, space, device);
  return {std::move(space), std::move(heuristic)};
}

// A run's configuration of `v` on `s`: the tuning database's for the shape class (choose_launch_params);
// a TN shape with no entry of its class takes the NN entry of its sizes (said in the detail)
// before the heuristic, until a sweep on TN stores its own.
LaunchChoice launch_of(const TuningDb* db, const DeviceInfo& device, Variant v, const Shape& s, Precision p,
                       const Tuning& t) {
  LaunchChoice c = choose_launch_params(db, device, key_of(v, s, p, device), t.heuristic, t.space);
  if (!s.transpose_a || !db || c.choice.source == TuningSource::exact || c.choice.source == TuningSource::nearest_size)
    return c;
  Shape nn = s;
  nn.transpose_a = false;
  LaunchChoice from_nn = choose_launch_params(db, device, key_of(v, nn, p, device), t.heuristic, t.space);
  if (from_nn.choice.source != TuningSource::exact && from_nn.choice.source != TuningSource::nearest_size) return c;
  from_nn.choice.source = TuningSource::nearest_size;
  from_nn.choice.detail += " (no TN entry: the NN one)";
  return from_nn;
}

// GEMM's own kernels with parameters (the sweeper's).
bool tunable(Variant v) {
  return v == Variant::tiled || v == Variant::tuned || v == Variant::tensor || v == Variant::packed;
}

bool runs(const std::string& backend, Variant v) {
  const BackendTraits& traits = *backend_traits(backend);
  if (v == Variant::vendor && traits.vendor.empty()) return false;  // its library was not found when configured
  return std::find(traits.variants.begin(), traits.variants.end(), v) != traits.variants.end();
}

// Host bytes a point holds at once: the inputs in double, the device's copies (on openmp, host
// memory too: A, B, C0 and C), C read back, and the reference check's own copies.
std::uint64_t host_bytes_needed(const Shape& s, Precision p) {
  const auto a = static_cast<std::uint64_t>(s.a_elements()), b = static_cast<std::uint64_t>(s.b_elements()),
             c = static_cast<std::uint64_t>(s.c_elements());
  std::uint64_t bytes = 8 * (a + b + c) + bytes_of(p) * (a + b + 2 * c) + 8 * c;
  if (static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) <= reference_limit)
    bytes += 8 * (a + b + 2 * c);
  return bytes;
}

// A, B and C0 from fixed seeds, as a device of precision `p` holds them.
struct Inputs {
  std::vector<double> a, b, c0;
  Inputs(const Shape& s, Precision p)
      : a(make_input(s.a_elements(), 1, false)), b(make_input(s.b_elements(), 2, false)),
        c0(make_input(s.c_elements(), 3, false)) {
    if (p == Precision::f32)
      for (auto* v : {&a, &b, &c0})
        for (auto& x : *v) x = static_cast<float>(x);
  }
};

// The test-only hook GPUBENCH_WRONG_RESULT=NAME: the points whose name contains NAME get one
// element of C changed after the call, so that a test can see verification fail. Unset: nothing.
void plant_wrong_result(const std::string& point, std::vector<double>& c) {
  const char* name = test_hook("GPUBENCH_WRONG_RESULT");
  if (name && point.find(name) != std::string::npos && !c.empty()) c[c.size() / 2] += 1;
}

class GemmPoint final : public Point {
 public:
  GemmPoint(PointId id, Shape shape, Variant v, Params params)
      : Point(std::move(id)), shape_(std::move(shape)), variant_(v), params_(std::move(params)) {}

  void prepare() override {
    const OperationsFactory* factory = find_operations(id().backend);
    if (!factory) throw DeviceError("backend '" + id().backend + "' has no GEMM in this build");
    inputs_ = std::make_unique<Inputs>(shape_, id().precision);
    ops_ = (*factory)(id().device, id().precision);
    ops_->upload(shape_, inputs_->a, inputs_->b, inputs_->c0);
    ops_->run(variant_, params_, alpha, beta);  // warm-up: pages touched, caches and threads up
  }

  Outcome run() override {
    Outcome o;
    o.seconds = ops_->run(variant_, params_, alpha, beta);
    o.iterations = 1;
    std::vector<double> c = ops_->result();
    plant_wrong_result(id().name(), c);
    const Verdict v = verify(shape_, id().precision, alpha, inputs_->a, inputs_->b, beta, inputs_->c0, c, reference_limit);
    o.verified = v.passed;
    o.verification = v.detail;
    o.fields = {{"m", shape_.m}, {"n", shape_.n}, {"k", shape_.k}, {"transpose_a", shape_.transpose_a},
                {"alpha", alpha}, {"beta", beta}};
    if (const std::string mode = ops_->mode(variant_); !mode.empty()) o.fields["library_mode"] = mode;
    if (nlohmann::json blas = ops_->host_blas(variant_); !blas.is_null()) o.fields["host_blas"] = std::move(blas);
    if (nlohmann::json causes = ops_->gap_causes(variant_); !causes.empty()) o.fields["gap_causes"] = std::move(causes);
    return o;
  }

  Outcome run_unverified() override { return {ops_->run(variant_, params_, alpha, beta), 1, false, "", {}}; }

  Profile profile() override {
    const double seconds = ops_->run(variant_, params_, alpha, beta);
    return {{{kernel(), 1, seconds, flops(shape_), min_bytes(shape_, id().precision)}}, seconds};
  }

  double flops_per_iteration() const override { return flops(shape_); }
  std::string compute_unit() const override { return ops_ ? ops_->compute_unit(variant_) : std::string(); }
  double bytes_per_iteration() const override { return min_bytes(shape_, id().precision); }
  std::string time_includes() const override {
    return "one GEMM call, C = alpha A B + beta C, on data already on the device (C reset to C0 before it, not "
           "timed)";
  }
  void release() override {
    ops_.reset();
    inputs_.reset();
  }

 private:
  std::string kernel() const { return "gemm_" + to_string(variant_); }

  Shape shape_;
  Variant variant_;
  Params params_;
  std::unique_ptr<Inputs> inputs_;
  std::unique_ptr<Operations> ops_;
};

// A tunable kernel (tiled, tuned, tensor, packed) for the sweeper. The kernels of one device and precision share
// the inputs and the device's copies of them (`ops`, uploaded once).
class VariantKernel final : public TunableKernel {
 public:
  VariantKernel(const DeviceInfo& device, Variant v, Shape shape, Precision p, std::shared_ptr<const Inputs> inputs,
                std::shared_ptr<Operations> ops)
      : device_(device), variant_(v), shape_(std::move(shape)), precision_(p), tuning_(tuning_of(v, device, shape_, p)),
        inputs_(std::move(inputs)), ops_(std::move(ops)) {}
  std::string name() const override { return to_string(variant_); }
  TunableSpace tunables() const override { return tuning_.space; }
  Params heuristic() const override { return tuning_.heuristic; }
  TuningKey key() const override { return key_of(variant_, shape_, precision_, device_); }
  double flops_per_call() const override { return flops(shape_); }
  double bytes_per_call() const override { return min_bytes(shape_, precision_); }
  void prepare(const std::vector<Params>& configs) override { ops_->build(variant_, configs); }

  KernelTiming measure(const Params& params, double time_limit_s) override {
    return verify_then_time<Verdict>(
        name() + " " + format_params(params), [&] { return ops_->run(variant_, params, alpha, beta); },
        [&] {
          return verify(shape_, precision_, alpha, inputs_->a, inputs_->b, beta, inputs_->c0, ops_->result(),
                        reference_limit);
        },
        time_limit_s);
  }

 private:
  DeviceInfo device_;
  Variant variant_;
  Shape shape_;
  Precision precision_;
  Tuning tuning_;
  std::shared_ptr<const Inputs> inputs_;
  std::shared_ptr<Operations> ops_;
};

class GemmSuite final : public Suite {
 public:
  std::string name() const override { return "gemm"; }
  std::string default_problem() const override { return "512"; }
  std::string problems_help() const override { return "N (square), MxNxK; either with :NN or :TN (A transposed)"; }
  std::vector<std::string> variants() const override { return variant_table().names(); }

  Plan plan(const RunOptions& options) override {
    const Shape shape = parse_shape(problem_of(options));
    for (Precision p : options.precisions)  // before anything of that size is allocated
      check_host_memory(host_bytes_needed(shape, p), "GEMM problem " + shape.name + " in " + to_string(p));
    const std::vector<Variant> variants = variant_table().asked(options);
    Plan plan;
    for (const DeviceInfo& device : devices(options, plan.unavailable)) {
      const BackendTraits& traits = *backend_traits(device.backend);
      for (Variant v : variants) {
        if (!runs(device.backend, v)) {
          if (v == Variant::vendor)
            plan.unavailable.push_back("vendor on " + device.backend + ": " + traits.no_vendor);
          else if (!options.variants.empty())  // asked for by name: say why not
            plan.unavailable.push_back(to_string(v) + " on " + device.backend + ": not a GEMM variant of this backend");
          continue;
        }
        for (Precision p : options.precisions) {
          if (traits.refuses) {
            if (const std::string why = traits.refuses(device, v, p); !why.empty()) {
              plan.unavailable.push_back(to_string(v) + " " + to_string(p) + " on " + device.backend + ": " + why);
              continue;
            }
          }
          PointId id = point_id(*this, shape.name, device, to_string(v), p);
          Params params;
          if (tunable(v)) {
            const Tuning t = tuning_of(v, device, shape, p);
            const LaunchChoice chosen =
                launch_of(options.tuning.get(), device, v, shape, p, t);
            params = chosen.params;
            id.params["launch"]["gemm_" + to_string(v)] = launch_json(chosen);
          }
          if (v == Variant::serial) id.params["threads"] = 1;
          if (v == Variant::vendor) {
            std::string library = traits.vendor;
            library.erase(0, library.find_first_not_of(' '));
            library.erase(library.find_last_not_of(' ') + 1);
            id.params["library"] = library;
          }
          plan.points.push_back(std::make_unique<GemmPoint>(std::move(id), shape, v, params));
        }
      }
    }
    return plan;
  }

  std::optional<TunableSpace> parameters_of(const std::string& key_kernel) const override {
    // The database's kernel names: the variant, ":thin" for a thin C, ":TN" for A transposed (key_of).
    std::string kernel = key_kernel.ends_with(":TN") ? key_kernel.substr(0, key_kernel.size() - 3) : key_kernel;
    if (kernel.ends_with(":thin")) kernel.resize(kernel.size() - 5);
    if (kernel == "tiled") {  // and on omp_target its team's threads (tuning_of)
      TunableSpace space = tile_space();
      space.params.push_back(grid::group_size(1024));
      return space;
    }
    if (kernel == "packed") return packed_space();
    if (kernel == "tuned") {  // CUDA's and OpenCL's, and OpenMP offload's (omp_tuned_space): their names
      TunableSpace space{tuned_space(DeviceInfo{}, Precision::f32, std::int64_t{1} << 40).params, {}};
      for (Tunable& t : space.params)
        if (t.name == "tm" || t.name == "tn") t = Tunable::list(t.name, {2, 4, 8});
      DeviceInfo largest;
      largest.max_work_group_size = 1024;
      for (const Tunable& t : omp_tuned_space(largest).params)
        if (t.name != "tm" && t.name != "tn") space.params.push_back(t);
      for (const Tunable& t : gemv_space().params) space.params.push_back(t);  // a degenerate shape's entry
      return space;
    }
    if (kernel == "tensor") {
      TunableSpace space = tensor_space();
      for (const Tunable& t : gemv_space().params) space.params.push_back(t);
      return space;
    }
    return std::nullopt;
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel) override {
    if (!kernel.empty() && kernel != "tiled" && kernel != "tuned" && kernel != "tensor" && kernel != "packed")
      throw UsageError("unknown GEMM kernel '" + kernel + "' (tunable: tiled, tuned, tensor, packed)");
    check_sweep_options(options);
    const Shape shape = parse_shape(problem_of(options));
    for (Precision p : options.precisions)
      check_host_memory(host_bytes_needed(shape, p), "GEMM problem " + shape.name + " in " + to_string(p));
    std::vector<std::string> skipped;
    std::vector<SweepTarget> targets;
    for (const DeviceInfo& device : devices(options, skipped)) {
      const BackendTraits& traits = *backend_traits(device.backend);
      for (Precision p : options.precisions) {
        SweepTarget target;
        target.device = device;
        target.problem = shape.name;
        target.precision = p;
        std::shared_ptr<const Inputs> inputs;
        std::shared_ptr<Operations> ops;
        for (Variant v : {Variant::tiled, Variant::tuned, Variant::tensor, Variant::packed}) {
          if (!kernel.empty() && kernel != to_string(v)) continue;
          if (!runs(device.backend, v)) {
            // the host's and CUDA's own: not missed elsewhere
            if (kernel.empty() && (v == Variant::packed || v == Variant::tensor)) continue;
            target.untunable.push_back(to_string(v) + ": not a GEMM variant of " + device.backend);
            continue;
          }
          if (traits.refuses) {
            if (const std::string why = traits.refuses(device, v, p); !why.empty()) {
              target.untunable.push_back(to_string(v) + " " + to_string(p) + ": " + why);
              continue;
            }
          }
          if (!ops) {
            inputs = std::make_shared<const Inputs>(shape, p);
            ops = (*find_operations(device.backend))(device, p);
            ops->upload(shape, inputs->a, inputs->b, inputs->c0);
          }
          target.kernels.push_back(std::make_unique<VariantKernel>(device, v, shape, p, inputs, ops));
        }
        targets.push_back(std::move(target));
      }
    }
    return targets;
  }

 private:
  // The devices of the backends that run GEMM; the others are listed as unavailable.
  static std::vector<DeviceInfo> devices(const RunOptions& options, std::vector<std::string>& skipped) {
    return registered_devices(options, "gemm", operations_registry(), skipped);
  }
};

GPUBENCH_REGISTER_SUITE(GemmSuite);

}  // namespace

LaunchChoice own_launch(const TuningDb* db, const DeviceInfo& device, Variant v, const Shape& shape, Precision p) {
  if (!tunable(v)) return {};
  const Tuning t = tuning_of(v, device, shape, p);
  return launch_of(db, device, v, shape, p, t);
}

}  // namespace gpubench::gemm
