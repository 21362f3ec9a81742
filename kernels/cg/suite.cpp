// The CG suite: plans one point per backend x variant x precision on one problem, and runs each
// point through the algorithm of solver.hpp on that backend's Operations.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <new>
#include <numeric>

#include "backends/registry.hpp"
#include "common/errors.hpp"
#include "common/out_of_memory.hpp"
#include "bench/parse_number.hpp"
#include "bench/result_json.hpp"
#include "bench/suite.hpp"
#include "kernels/cg/distributed.hpp"
#include "kernels/cg/npb.hpp"
#include "kernels/cg/operations.hpp"
#include "kernels/cg/problems.hpp"
#include "bench/progress.hpp"
#include "kernels/cg/reference.hpp"
#include "kernels/cg/solver.hpp"
#include "kernels/cg/tune.hpp"
#include "kernels/cg/verify.hpp"
#include "kernels/cg/work.hpp"

namespace gpubench::cg {

namespace {

// The problem and its host reference, built once per run and shared by every point.
struct SharedProblem {
  Problem problem;
  double b_norm = 0;
  const NpbClass* npb = nullptr;  // set for npb:X problems
  std::unique_ptr<HostReference> reference;

  HostReference& host_reference() {
    if (!reference) reference = std::make_unique<HostReference>(problem.a, problem.b);
    return *reference;
  }
  ProblemShape shape(Precision p) const { return {problem.a.rows, problem.a.nnz(), p}; }
};

std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

class CgPoint final : public Point {
 public:
  // launch: per band (one for one device), each kernel's launch parameters.
  CgPoint(PointId id, std::shared_ptr<SharedProblem> problem, Variant variant, StopRule rule,
          std::vector<std::vector<std::pair<std::string, Params>>> launch, std::shared_ptr<Comm> comm)
      : Point(std::move(id)), problem_(std::move(problem)), variant_(variant), rule_(rule), launch_(std::move(launch)),
        comm_(std::move(comm)) {}

  void prepare() override { across_ranks([&] { prepare_here(); }); }
  Outcome run() override {
    return across_ranks([&] { return problem_->npb ? run_npb(false) : run_solve(false); });
  }
  Profile profile() override { return across_ranks([&] { return profile_here(); }); }
  // The timed solve without the check of its solution (NAS's problems keep their own run).
  Outcome run_unverified() override {
    if (problem_->npb || id().devices.size() > 1) return run();
    const SolveResult r = solve(*ops_, *solver_, rule_, problem_->b_norm);
    return {r.seconds, r.iterations, false, "", {}};
  }

 private:
  // Across ranks, a rank that fails ends the run (the others would wait for it): said on rank 0.
  template <typename F>
  auto across_ranks(F&& f) -> decltype(f()) {
    if (!comm_ || comm_->size() < 2) return f();
    try {
      return f();
    } catch (const Error& e) {
      comm_->fail(e.what(), static_cast<int>(e.code()));
      throw;  // (fail never returns)
    } catch (const std::exception& e) {
      comm_->fail(e.what(), static_cast<int>(ExitCode::point_failed));
      throw;
    }
  }

  void prepare_here() {
    const auto& a = problem_->problem.a;
    if (id().devices.size() > 1) {
      auto several = make_distributed_operations(id().devices, a, id().precision, Params{}, comm_);
      for (std::size_t k = 0; k < launch_.size(); ++k)
        for (const auto& [kernel, launch] : launch_[k]) several->set_launch(static_cast<int>(k), kernel, launch);
      ops_ = std::move(several);
    } else {
      const OperationsFactory* factory = find_operations(id().backend);
      if (!factory) throw DeviceError("backend '" + id().backend + "' has no CG implementation in this build");
      ops_ = (*factory)(id().device, a, id().precision, Params{});
      for (const auto& [kernel, launch] : launch_.at(0)) ops_->set_launch(kernel, launch);
    }
    solver_ = variant_ == Variant::vendor ? ops_->make_vendor_solver() : make_solver(variant_);
    if (!solver_) throw DeviceError("backend '" + id().backend + "' has no vendor CG");
    ops_->allocate_vectors(solver_->vectors());
    ops_->upload(rhs_slot, problem_->problem.b);
    // Warm-up: builds programs, touches every buffer, launches every kernel once.
    solve(*ops_, *solver_, StopRule{std::min(rule_.iterations, 3), 0}, problem_->b_norm);
  }

  Profile profile_here() {
    Outcome pass;
    if (problem_->npb) {
      ops_->set_profiling(true);
      pass = run_npb(true);
      ops_->set_profiling(false);
    } else {
      pass = run_solve(true);
    }
    const auto shape = problem_->shape(id().precision);
    const auto declared = iteration_work(variant_, shape);
    std::vector<KernelRow> rows;
    for (const auto& k : ops_->take_profile()) {
      auto it = std::find_if(declared.begin(), declared.end(), [&](const KernelWork& w) { return w.kernel == k.kernel; });
      const KernelWork per_call = it != declared.end() ? *it : kernel_work(k.kernel, shape);
      const double calls = static_cast<double>(k.calls) / profiled_iterations_;
      rows.push_back({k.kernel, calls, k.seconds / profiled_iterations_, per_call.flops * calls, per_call.bytes * calls});
    }
    // Across devices, each band's time per iteration of each kernel (the rows above: the slowest
    // band's), for the records (band_kernels): where the bands differ.
    band_kernels_ = nlohmann::json::object();
    if (const auto* several = dynamic_cast<const DistributedOperations*>(ops_.get()))
      for (const auto& band : several->band_profiles())
        for (const KernelProfile& k : band) {
          nlohmann::json& times = band_kernels_[k.kernel];
          if (times.is_null()) times = nlohmann::json::array();
          times.push_back(1e3 * k.seconds / profiled_iterations_);
        }
    // The variant's own kernels first, in the order an iteration launches them.
    auto rank = [&](const KernelRow& r) {
      auto it = std::find_if(declared.begin(), declared.end(), [&](const KernelWork& w) { return w.kernel == r.kernel; });
      return it - declared.begin();
    };
    std::stable_sort(rows.begin(), rows.end(), [&](const KernelRow& x, const KernelRow& y) { return rank(x) < rank(y); });
    return {rows, pass.seconds / std::max(pass.iterations, 1)};
  }

 public:
  double flops_per_iteration() const override {
    const auto shape = problem_->shape(id().precision);
    if (const NpbClass* c = problem_->npb)  // NAS's own operation count, so Mop/s match NAS's
      return npb_operations(*c) / (c->niter * npb_cg_iterations);
    return total(iteration_work(variant_, shape)).flops;
  }

  double bytes_per_iteration() const override {
    const auto shape = problem_->shape(id().precision);
    double bytes = total(iteration_work(variant_, shape)).bytes;
    if (problem_->npb) {  // each outer step adds A z, x - Az, three dots and x = z / ||z||
      const double outer = spmv_work(shape).bytes + axpy_work(shape).bytes + 2 * dot_work(shape, true).bytes +
                           dot_work(shape, false).bytes + kernel_work("scale", shape).bytes;
      bytes += outer / npb_cg_iterations;
    }
    return bytes;
  }

  std::string time_includes() const override {
    if (id().devices.size() > 1)
      return std::string(problem_->npb ? "one of NAS CG's inner iterations (NAS's timed loop / niter x 25)"
                                       : "one CG iteration of the timed solve") +
             " across " + std::to_string(id().devices.size()) + (id().ranks > 0 ? " ranks" : " devices") +
             ": every band's kernels, the halo exchange for each SpMV (" +
             (id().ranks > 0 ? "between ranks by MPI, through the host"
                             : "device to device between CUDA devices, else through the host") +
             "; the entries' \"exchange\" says how, and \"exchange_overlap\" the share of the rows whose "
             "SpMV ran meanwhile) and the dot partials' sums (the fused forms' on the devices where every band "
             "keeps its scalars there), by the host's clock (the "
             "slowest rank's); no matrix upload";
    if (problem_->npb)
      return "one of NAS CG's inner iterations: NAS's timed loop (niter outer steps with their SpMVs, dots and "
             "norms) divided by niter x 25; no matrix upload";
    if (variant_ == Variant::form1 || variant_ == Variant::form2)
      return "one CG iteration of the timed solve: its kernels and the host gaps between them (the coefficients "
             "computed where the backend keeps the scalars: on CUDA and OpenCL on the device, read by the host only "
             "for a tolerance check); no matrix upload";
    return "one CG iteration of the timed solve: its kernels and the host gaps between them (dot partials read "
           "back); no matrix upload";
  }

  void release() override {
    ops_.reset();
    solver_.reset();
  }

 private:
  Outcome run_solve(bool per_kernel) {
    const auto& p = problem_->problem;
    const SolveResult r = solve(*ops_, *solver_, rule_, problem_->b_norm, per_kernel);
    profiled_iterations_ = std::max(r.iterations, 1);
    Outcome o{r.seconds, r.iterations, false, "", {}};
    if (per_kernel) return o;
    o.fields = exchange_fields();
    add_gap_causes(o);
    std::vector<double> x(static_cast<std::size_t>(p.a.rows));
    ops_->download(solver_->solution(), x);
    const Verdict v = verify_solve(p.a, p.b, x, id().precision, r, rule_, problem_->host_reference());
    o.verified = v.passed;
    o.verification = v.detail;
    o.fields.update({{"true_residual", v.true_residual},
                {"solver_residual", v.solver_residual},
                {"reference_residual", v.reference_residual},
                {"converged", r.converged},
                {"residual_replacements", r.residual_replacements},
                {"issue_ms_per_iteration", 1e3 * r.issue_seconds / std::max(r.iterations, 1)},
                {"summary", "residual " + sci(v.true_residual) + " (host ref " + sci(v.reference_residual) + ")" +
                                (rule_.tolerance > 0 ? ", " + std::to_string(r.iterations) + " iterations" : "") +
                                (r.residual_replacements > 0
                                     ? ", " + std::to_string(r.residual_replacements) + " residual replacements"
                                     : "")}});
    return o;
  }

  Outcome run_npb(bool per_kernel) {
    const NpbClass& c = *problem_->npb;
    ops_->upload(rhs_slot, problem_->problem.b);  // NAS resets x to ones before the timed loop
    const NpbResult r = npb_benchmark(*ops_, *solver_, c);
    profiled_iterations_ = r.cg_iterations;
    Outcome o{r.seconds, r.cg_iterations, false, "", {}};
    if (per_kernel) return o;
    const Verdict v = verify_npb(c, id().precision, r.zeta);
    const double mops = npb_operations(c) / r.seconds / 1e6;
    char summary[160];
    std::snprintf(summary, sizeof summary, "zeta %.13f (%s), %.3f s total, %.0f Mop/s", r.zeta,
                  v.passed ? "verified" : "WRONG", r.seconds, mops);
    o.verified = v.passed;
    o.verification = v.detail;
    o.fields = exchange_fields();
    add_gap_causes(o);
    o.fields.update({{"zeta", r.zeta},           {"zeta_verify", c.zeta_verify}, {"rnorm", r.rnorm},
                     {"npb_class", std::string(1, c.name)}, {"npb_mops", mops}, {"total_seconds", r.seconds},
                     {"summary", summary}});
    return o;
  }

  // Where the backend's own kernels take a slower path than another API's (not its library's).
  void add_gap_causes(Outcome& o) const {
    if (const nlohmann::json& causes = ops_->gap_causes(); variant_ != Variant::vendor && !causes.empty())
      o.fields["gap_causes"] = causes;
  }

  // Across devices: how the halo moved ("exchange"), the share of the rows whose SpMV ran while
  // it moved in the timed pass ("exchange_overlap"; the vendor variant's library SpMV runs whole,
  // after it), for the fused forms where their sums met ("fused_sums"), and each band's time per
  // iteration of each kernel in the profiled pass ("band_kernels").
  nlohmann::json exchange_fields() const {
    const auto* several = dynamic_cast<const DistributedOperations*>(ops_.get());
    if (!several || several->exchange_path().empty()) return nlohmann::json::object();
    nlohmann::json fields = {{"exchange", several->exchange_path()},
                             {"exchange_overlap", variant_ == Variant::vendor ? 0.0 : several->overlapped_fraction()}};
    // Where the fused forms' sums meet: on the bands' devices, or on the host.
    if (variant_ == Variant::form1 || variant_ == Variant::form2)
      fields["fused_sums"] = several->device_scalars() ? "devices" : "host";
    if (!band_kernels_.empty()) fields["band_kernels"] = band_kernels_;  // ms per iteration, band by band
    return fields;
  }

  std::shared_ptr<SharedProblem> problem_;
  Variant variant_;
  StopRule rule_;
  std::vector<std::vector<std::pair<std::string, Params>>> launch_;  // per band, per kernel
  std::shared_ptr<Comm> comm_;
  std::unique_ptr<Solver> solver_;
  std::unique_ptr<Operations> ops_;
  int profiled_iterations_ = 1;
  nlohmann::json band_kernels_ = nlohmann::json::object();  // the profiled pass's, per band (exchange_fields)
};

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  return buf;
}

// A CPU device (OpenMP, PoCL) holds its copy of the problem in the host's memory, beside the
// host's own: the largest such copy of a matrix of `rows` x `nnz`, with the words naming it.
SharedHostCopies cpu_device_copies(const std::vector<DeviceInfo>& devices, const std::vector<Precision>& precisions) {
  return [devices, precisions](std::int64_t rows, std::int64_t nnz) {
    SharedHostCopy largest;
    for (const auto& d : devices) {
      if (d.type != "cpu") continue;
      for (Precision p : precisions) {
        const auto need = device_bytes_needed(rows, nnz, p, max_cg_vectors);
        if (need > largest.bytes)
          largest = {need, std::string(", counting the ") + to_string(p) + " copy that " + d.label() + " keeps there"};
      }
    }
    return largest;
  };
}

// Generated problems have a known size: check it against the host and every device before
// generating anything, so an impossible size is an error, never an allocation failure.
// (mtx: and npb: problems are checked by make_problem once their size is read.)
void check_generated_size(const std::string& spec, const std::vector<DeviceInfo>& devices,
                          const std::vector<Precision>& precisions, std::int64_t bands) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return;
  const std::string kind = spec.substr(0, colon);
  if (kind != "poisson2d" && kind != "poisson3d") return;
  std::int64_t n = 0;
  try {
    std::size_t used = 0;
    n = std::stoll(spec.substr(colon + 1), &used);
    if (used != spec.size() - colon - 1) return;  // make_problem reports the malformed spec
  } catch (const std::exception&) {
    return;
  }
  if (n < 1 || n > 3'000'000) return;  // make_problem reports the out-of-range size
  const double nd = static_cast<double>(n);
  const double rows = kind == "poisson2d" ? nd * nd : nd * nd * nd;
  const double nnz = kind == "poisson2d" ? 5 * nd * nd - 4 * nd : 7 * nd * nd * nd - 6 * nd * nd;
  if (rows > 2147483647.0 || nnz > 2147483647.0) return;  // make_problem reports the int32 limit
  const auto rows_i = static_cast<std::int64_t>(rows), nnz_i = static_cast<std::int64_t>(nnz);
  check_run_fits_host(rows_i, nnz_i, cpu_device_copies(devices, precisions),
                      "problem " + spec + " (" + std::to_string(rows_i) + " rows, " + std::to_string(nnz_i) + " nonzeros");
  for (const auto& d : devices) {
    for (Precision p : precisions) {  // a band: its share of the rows and nonzeros (its halo is small)
      const auto need = device_bytes_needed((rows_i + bands - 1) / bands, (nnz_i + bands - 1) / bands, p, max_cg_vectors);
      if (d.global_mem_bytes > 0 && need > d.global_mem_bytes)
        throw DeviceError("problem " + spec + " in " + to_string(p) + " needs " + gigabytes(static_cast<double>(need)) +
                          " of device memory; " + d.label() + " has " +
                          gigabytes(static_cast<double>(d.global_mem_bytes)));
    }
  }
}

// CG works with squared norms (r.r, b.b): a right-hand side whose entries are nonzero but whose
// squared norm underflows (matrix values near 1e-200) or overflows in double precision cannot be
// solved as given. Say so, rather than blame a zero right-hand side later.
void check_representable(const std::string& spec, const std::vector<double>& b, double bb) {
  double largest = 0;
  for (double v : b) largest = std::max(largest, std::abs(v));
  if (largest == 0 || (bb >= std::numeric_limits<double>::min() && std::isfinite(bb))) return;
  char text[300];
  std::snprintf(text, sizeof text,
                "problem %s: its right-hand side (largest entry %.3g) has a squared norm that %s in "
                "double precision, so CG's dot products cannot represent it; scale the matrix's values nearer 1",
                spec.c_str(), largest, std::isfinite(bb) ? "underflows" : "overflows");
  throw InputError(text);
}

class CgSuite final : public Suite {
 public:
  std::string name() const override { return "cg"; }
  std::string default_problem() const override { return "poisson2d:512"; }
  std::string problems_help() const override {
    return "poisson2d:N, poisson3d:N, mtx:PATH (Matrix Market, SPD), npb:S|W|A|B|C (NAS CG)";
  }
  std::vector<SuiteOption> options() const override {
    return {{"iterations", "K", "CG iterations (default 100; with --tolerance, the cap, default 20000)"},
            {"tolerance", "T", "solve to relative residual ||r||/||b|| <= T instead of a fixed count"},
            {"check-every", "K",
             "with --tolerance: form1 and form2, whose scalars stay on the device, have their residual read "
             "every K iterations (default " + std::to_string(StopRule::default_check_every) + ")"}};
  }
  std::vector<std::string> variants() const override { return variant_table().names(); }

  // At parse time, so that nothing is built for a run that would be refused (npb:C's matrix
  // takes a while).
  void check_option_values(const RunOptions& options) const override {
    const std::string spec = problem_of(options);
    if (spec.rfind("npb:", 0) == 0 && !options.suite_options.empty())
      throw UsageError("npb problems run NAS CG's own iteration counts: drop --iterations/--tolerance");
    stop_rule(options);
  }

  std::optional<TunableSpace> parameters_of(const std::string& kernel) const override {
    const auto& names = tunable_kernels();
    if (std::find(names.begin(), names.end(), kernel) == names.end()) return std::nullopt;
    return kernel_tunables(kernel, std::size_t{1} << 30);
  }

  std::vector<SweepTarget> sweep_targets(const RunOptions& options, const std::string& kernel) override {
    check_sweep_options(options);
    std::vector<std::string> skipped;
    const std::vector<DeviceInfo> devices = find_devices(options, skipped);
    std::shared_ptr<const SharedProblem> shared = load_problem(options, devices);
    std::shared_ptr<const Problem> problem(shared, &shared->problem);
    std::vector<SweepTarget> targets;
    for (const DeviceInfo& device : devices)
      for (Precision p : options.precisions) targets.push_back(make_sweep_target(device, problem, p, kernel));
    return targets;
  }

  Plan plan(const RunOptions& options) override {
    const std::vector<Variant> variants = variant_table().asked(options);
    check_option_values(options);
    std::vector<std::string> skipped;
    const std::vector<DeviceGroup> groups = find_groups(options, skipped);
    std::vector<DeviceInfo> devices;
    std::size_t fewest_bands = groups.empty() ? 1 : groups.front().devices.size();
    for (const auto& g : groups) {
      devices.insert(devices.end(), g.devices.begin(), g.devices.end());
      fewest_bands = std::min(fewest_bands, g.devices.size());
    }
    auto shared = load_problem(options, devices, fewest_bands);
    const StopRule rule = stop_rule(options);
    Plan plan;
    plan.unavailable = std::move(skipped);
    for (const DeviceGroup& group : groups) {
      const DeviceInfo& device = group.devices.front();
      const bool several = group.devices.size() > 1;
      for (Variant v : variants) {
        if (v == Variant::vendor && vendor_library(device.backend).empty()) {
          plan.unavailable.push_back("vendor on " + device.backend + ": this backend has no vendor CG library");
          continue;
        }
        for (Precision p : options.precisions) {
          PointId id = point_id(*this, shared->problem.name, device, to_string(v), p);
          if (several) {
            id.devices = group.devices;
            id.hosts = group.hosts;
            id.ranks = group.ranks;
          }
          std::vector<std::vector<std::pair<std::string, Params>>> launches;
          nlohmann::json band_launch = nlohmann::json::array();
          for (const DeviceInfo& d : group.devices) {
            LaunchChoices launch = choose_launch(options, d, shared->problem.a, v, p);
            if (launches.empty()) id.params = launch.params;
            band_launch.push_back(launch.params.value("launch", nlohmann::json::object()));
            launches.push_back(std::move(launch.kernels));
          }
          if (several && std::any_of(band_launch.begin(), band_launch.end(),
                                     [&](const nlohmann::json& l) { return l != band_launch.front(); }))
            id.params["band_launch"] = band_launch;  // bands on different devices launch differently
          if (rule.tolerance > 0) id.params["tolerance"] = rule.tolerance;
          if (rule.tolerance > 0 && (v == Variant::form1 || v == Variant::form2))
            id.params["check_every"] = rule.check_every;
          if (!shared->npb) id.params["max_iterations"] = rule.iterations;
          if (v == Variant::vendor) id.params["library"] = vendor_library(device.backend);
          plan.points.push_back(
              std::make_unique<CgPoint>(std::move(id), shared, v, rule, std::move(launches), several ? options.comm : nullptr));
        }
      }
    }
    return plan;
  }

 private:
  // --iterations and --tolerance: a fixed count (default 100), or a tolerance with a cap (default 20000).
  static StopRule stop_rule(const RunOptions& options) {
    StopRule rule{100, 0};
    if (const auto t = real_option(options, "tolerance")) {
      if (!(*t > 0 && *t < 1)) throw UsageError("--tolerance must be in (0, 1), got " + options.suite_options.at("tolerance"));
      rule.tolerance = *t;
      rule.iterations = 20000;
    }
    if (const auto it = options.suite_options.find("iterations"); it != options.suite_options.end())
      rule.iterations = parse_number<int>("--iterations", it->second, 1);
    if (const auto it = options.suite_options.find("check-every"); it != options.suite_options.end()) {
      if (rule.tolerance <= 0)
        throw UsageError("--check-every sets how often a tolerance solve reads its residual: give --tolerance too");
      rule.check_every = parse_number<int>("--check-every", it->second, 1);
    }
    return rule;
  }

  static std::vector<DeviceInfo> find_devices(const RunOptions& options, std::vector<std::string>& skipped) {
    return registered_devices(options, "cg", operations_registry(), skipped);
  }

  // The devices one solve runs on: per backend, one device, the --device list or all of them in
  // this process, or across MPI ranks each rank's own device (gathered, so that every rank plans
  // the same points).
  struct DeviceGroup {
    std::vector<DeviceInfo> devices;  // by band
    std::vector<std::string> hosts;   // by band, across ranks
    int ranks = 0;
  };

  static std::vector<DeviceGroup> find_groups(const RunOptions& options, std::vector<std::string>& skipped) {
    const bool ranks = options.comm && options.comm->size() > 1;
    std::vector<DeviceGroup> groups;
    if (!ranks && !options.all_devices && options.device_group.empty()) {
      for (DeviceInfo& d : find_devices(options, skipped)) groups.push_back({{std::move(d)}, {}, 0});
      return groups;
    }
    for (const std::string& backend : options.backends) {
      // A backend built as a module is loaded now: its CG operations come with it.
      if (const std::string why = load_backend(backend); !why.empty()) {
        if (options.backends.size() == 1) throw DeviceError(backend + ": no devices: " + why);
        skipped.push_back(backend + ": no devices: " + why);
        continue;
      }
      if (!find_operations(backend) || !runs_bands(backend)) {
        const std::string why = find_operations(backend)
                                    ? "backend '" + backend + "' solves a whole matrix on one device (no bands across devices)"
                                    : "backend '" + backend + "' has no cg implementation in this build";
        if (options.backends.size() == 1) throw UsageError(why);
        skipped.push_back(backend + ": " + why);
        continue;
      }
      DeviceGroup group;
      std::string missing;  // why a device is not there (on which rank)
      try {
        const auto count = static_cast<int>(find_backend(backend).devices().size());
        if (ranks) {
          const int local = options.comm->local_rank();
          int index = options.device;
          if (options.all_devices && count > 0) index = local % count;
          if (!options.device_group.empty())
            index = options.device_group[static_cast<std::size_t>(local) % options.device_group.size()];
          // Every rank says what it found, so that all of them plan the same points.
          nlohmann::json mine = {{"host", options.comm->host()}};
          try {
            mine["device"] = find_device(backend, index);
          } catch (const DeviceError& e) {
            mine["error"] = e.what();
          }
          const auto all = options.comm->all_gather(mine.dump());
          for (std::size_t r = 0; r < all.size(); ++r) {
            const nlohmann::json theirs = nlohmann::json::parse(all[r]);
            if (theirs.contains("error") && missing.empty())
              missing = "rank " + std::to_string(r) + " (host " + theirs.at("host").get<std::string>() +
                        "): " + theirs.at("error").get<std::string>();
            if (!theirs.contains("device")) continue;
            group.devices.push_back(theirs.at("device").get<DeviceInfo>());
            group.hosts.push_back(theirs.at("host").get<std::string>());
          }
          group.ranks = options.comm->size();
        } else {
          std::vector<int> indices = options.device_group;
          if (options.all_devices)
            for (int i = 0; i < count; ++i) indices.push_back(i);
          for (int i : indices) group.devices.push_back(find_device(backend, i));
          if (group.devices.empty()) missing = "backend '" + backend + "' found no devices on this machine";
        }
      } catch (const DeviceError& e) {
        missing = e.what();
      }
      if (!missing.empty()) {
        if (options.backends.size() == 1) throw DeviceError(missing);
        std::cerr << "gpubench: skipping backend " << backend << ": " << missing << std::endl;
        skipped.push_back(backend + ": " + missing);
        continue;
      }
      groups.push_back(std::move(group));
    }
    return groups;
  }

  // The problem, after checking that a generated one fits the host and every device.
  // `bands`: the devices one solve is split across (each holds about 1/bands of it).
  std::shared_ptr<SharedProblem> load_problem(const RunOptions& options, const std::vector<DeviceInfo>& devices,
                                              std::size_t bands = 1) const {
    const std::string spec = problem_of(options);
    check_generated_size(spec, devices, options.precisions, static_cast<std::int64_t>(bands));
    auto shared = std::make_shared<SharedProblem>();
    try {
      progress::set_subject("problem " + spec);
      const progress::Phase phase("generating (or reading) the matrix");
      shared->problem = make_problem(spec, cpu_device_copies(devices, options.precisions));
    } catch (const std::bad_alloc&) {
      throw OutOfMemoryError("host", "building problem " + spec);
    }
    if (spec.rfind("npb:", 0) == 0) shared->npb = &npb_class(spec.substr(4));
    const double bb =
        std::inner_product(shared->problem.b.begin(), shared->problem.b.end(), shared->problem.b.begin(), 0.0);
    check_representable(spec, shared->problem.b, bb);
    shared->b_norm = std::sqrt(bb);
    std::cerr << "gpubench: problem " << shared->problem.name << ": " << shared->problem.a.rows << " rows, "
              << shared->problem.a.nnz() << " nonzeros" << std::endl;
    return shared;
  }

  struct LaunchChoices {
    std::vector<std::pair<std::string, Params>> kernels;  // what set_launch gets
    nlohmann::json params = nlohmann::json::object();          // what the records say
  };

  // Each kernel the variant launches gets its parameters from the tuning database (exact key,
  // nearest size, the device's default, the heuristic), or the heuristic with --tuning off.
  static LaunchChoices choose_launch(const RunOptions& options, const DeviceInfo& device, const CsrMatrix& a,
                                     Variant v, Precision p) {
    LaunchChoices c;
    if (v == Variant::vendor || !takes_launch_parameters(device.backend)) return c;
    nlohmann::json launch = nlohmann::json::object();
    for (const KernelWork& k : iteration_work(v, ProblemShape{a.rows, a.nnz(), p})) {
      const LaunchChoice chosen = choose_launch_params(
          options.tuning.get(), device, TuningKey::of_sizes("cg", k.kernel, p, {{"rows", a.rows}, {"nnz", a.nnz()}}),
          heuristic_params(k.kernel, device.max_work_group_size, has_spmv_forms(device.backend)),
          kernel_tunables(k.kernel, device.max_work_group_size, has_spmv_forms(device.backend)));
      launch[k.kernel] = launch_json(chosen);
      check_launch(k.kernel, chosen.params, "CG " + k.kernel);
      c.kernels.emplace_back(k.kernel, chosen.params);
    }
    c.params["launch"] = launch;
    return c;
  }
};

GPUBENCH_REGISTER_SUITE(CgSuite);

}  // namespace

}  // namespace gpubench::cg
