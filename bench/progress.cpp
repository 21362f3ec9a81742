#include "bench/progress.hpp"

#include <chrono>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>

namespace gpubench::progress {

namespace {

using Clock = std::chrono::steady_clock;

// The phase under way and a thread that says it once it has lasted; the thread starts with the
// first phase (in the worker process that measures, never before it is forked).
class Watch {
 public:
  static Watch& instance() {
    static Watch w;
    return w;
  }

  void set_subject(const std::string& s) {
    const std::lock_guard<std::mutex> lock(mutex_);
    subject_ = s;
  }

  std::string begin(const std::string& what) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    std::string previous = what_;
    end_locked();
    what_ = what;
    start_ = Clock::now();
    said_at_ = 0;
    return previous;
  }

  void end(const std::string& previous) {
    const std::lock_guard<std::mutex> lock(mutex_);
    end_locked();
    if (!previous.empty()) {  // an outer phase goes on
      what_ = previous;
      start_ = Clock::now();
      said_at_ = 0;
    }
  }

  ~Watch() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  std::string line(const std::string& text) const {
    std::ostringstream o;
    o << "gpubench:   " << (subject_.empty() ? "" : subject_ + ": ") << text;
    return o.str();
  }

  void end_locked() {
    if (!what_.empty() && said_at_ > 0)
      std::cerr << line(what_ + " done in " + std::to_string(static_cast<long>(elapsed() + 0.5)) + " s") << std::endl;
    what_.clear();
  }

  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(500));
      if (what_.empty()) continue;
      const double t = elapsed();
      if ((said_at_ == 0 && t >= quiet_s) || (said_at_ > 0 && t - said_at_ >= 30)) {
        std::cerr << line(what_ + " (" + std::to_string(static_cast<long>(t)) + " s so far)") << std::endl;
        said_at_ = t;
      }
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stop_ = false;
  std::string subject_, what_;
  Clock::time_point start_;
  double said_at_ = 0;
};

}  // namespace

void set_subject(const std::string& subject) { Watch::instance().set_subject(subject); }

Phase::Phase(const std::string& what) : previous_(Watch::instance().begin(what)) {}

Phase::~Phase() { Watch::instance().end(previous_); }

}  // namespace gpubench::progress
