// gpubench: benchmark and verify GPU kernels across APIs.
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench/cli.hpp"
#include "bench/errors.hpp"
#include "bench/harness.hpp"
#include "bench/list_devices.hpp"
#include "bench/records.hpp"

namespace {

int run(const std::vector<std::string>& args) {
  using namespace gpubench;
  const CliOptions options = parse_cli(args);
  if (options.help) {
    std::cout << usage();
    return 0;
  }
  if (options.list_devices) return list_devices(std::cout) ? 0 : static_cast<int>(ExitCode::device);

  auto suite = make_suite(options.run.suite);
  Plan plan = suite->plan(options.run);
  std::vector<PointId> planned;
  for (const auto& p : plan.points) planned.push_back(p->id());
  check_baseline(options.baseline, planned);
  if (plan.points.empty()) {
    std::string why;
    for (const auto& u : plan.unavailable) why += "\n  " + u;
    throw UsageError("nothing to run:" + (why.empty() ? std::string(" no backend has a device") : why));
  }
  const RunReport report = run_plan(plan, options.run.repetitions, std::cerr);

  std::ostringstream formatted;
  if (options.format == Format::json) write_json(report, formatted);
  if (options.format == Format::csv) write_csv(report, formatted);
  if (options.format == Format::table) write_table(report, formatted, options.baseline);
  if (options.out.empty()) {
    std::cout << formatted.str();
  } else {
    write_file_atomically(options.out, formatted.str());
    if (options.format != Format::table) write_table(report, std::cout, options.baseline);
    std::cerr << "gpubench: wrote " << options.out << "\n";
  }
  return report.any_failed() ? static_cast<int>(ExitCode::point_failed) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const gpubench::UsageError& e) {
    std::cerr << "gpubench: " << e.what() << "\n(gpubench --help lists the options)\n";
    return static_cast<int>(e.code());
  } catch (const gpubench::Error& e) {
    std::cerr << "gpubench: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::cerr << "gpubench: internal error: " << e.what() << "\n";
    return static_cast<int>(gpubench::ExitCode::internal);
  }
}
