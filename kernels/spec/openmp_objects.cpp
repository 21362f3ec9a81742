// A user's kernel spec on the OpenMP backends (kernels/spec/openmp.hpp): the spec's OpenMP text is
// C++ with OpenMP pragmas, one function per step, compiled at run time by the backend's compiler
// into a shared object that gpubench loads. The tunables are -D defines as on the other APIs (and
// -Dreal=float|double). gpubench appends to the source one wrapper per step, `extern "C" void
// gpubench_step_K(void**, const int64_t*, int)`, which sets the step's launch geometry
// (GB_GLOBAL_SIZE(d), GB_LOCAL_SIZE(d): the spec's `global` and `local`, which a function may use
// to split the same work as the GPU launch does) and its OpenMP device (GB_DEVICE), and calls the
// step's function with its arguments cast to the C types the spec gives them: the user's function
// needs no C linkage and takes ordinary pointers (the device's, on an offload backend) and scalars.
// Compiled objects are kept on disk ($GPUBENCH_KERNEL_CACHE, else $XDG_CACHE_HOME/gpubench/<cache>,
// else ~/.cache/gpubench/<cache>), keyed by the whole text (the spec file's name, not its folder),
// the compiler, its version, its flags, the device and the host's processor. A run is timed by the host's steady clock (the steps'
// target regions are synchronous).
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/kernel_cache.hpp"
#include "kernels/spec/openmp.hpp"

namespace gpubench::spec {

namespace {

// `argv` run with its standard output and error captured; its exit status (or 128 + the signal
// that ended it, or -1 when it could not be started: `output` says why).
int run_captured(const std::vector<std::string>& argv, std::string& output) {
  int pipe_fd[2];
  if (::pipe(pipe_fd) != 0) {
    output = std::string("pipe: ") + std::strerror(errno);
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    output = std::string("fork: ") + std::strerror(errno);
    ::close(pipe_fd[0]);
    ::close(pipe_fd[1]);
    return -1;
  }
  if (pid == 0) {
    ::dup2(pipe_fd[1], STDOUT_FILENO);
    ::dup2(pipe_fd[1], STDERR_FILENO);
    ::close(pipe_fd[0]);
    ::close(pipe_fd[1]);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(pipe_fd[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(pipe_fd[0], buffer, sizeof buffer);
    if (got > 0) {
      output.append(buffer, static_cast<std::size_t>(got));
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    break;
  }
  ::close(pipe_fd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// A compiler's first line of `--version` (part of the cache's key); empty, and `why` why, when it
// does not run.
std::string compiler_version(const std::string& compiler, std::string& why) {
  std::string out;
  const int status = run_captured({compiler, "--version"}, out);
  if (status == 0) return out.substr(0, out.find('\n'));
  why = "the OpenMP kernel compiler " + compiler + " does not run here (" +
        (out.empty() ? "exit status " + std::to_string(status) : out.substr(0, out.find('\n'))) +
        "), the compiler this backend was built with: install it (scripts/setup names its Debian package)";
  return "";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// `text` as the cache's key reads it: the file a `#line` names (kernels/spec/spec.cpp puts one
// before a spec's OpenMP source) by its name alone, so that the same source, and so the same object,
// is found from another checkout's path (a GPU machine running objects compiled elsewhere).
std::string without_folders(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (line.starts_with("#line ")) {
      const std::size_t open = line.find('"'), close = line.rfind('"');
      if (open != std::string::npos && close > open) {
        const std::string file = line.substr(open + 1, close - open - 1);
        const std::size_t slash = file.rfind('/');
        if (slash != std::string::npos) line = line.substr(0, open + 1) + file.substr(slash + 1) + line.substr(close);
      }
    }
    out += line;
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

// What goes before a spec's OpenMP text: the launch geometry of the step that runs, and its device.
constexpr const char* prelude = R"(#include <cstdint>
static std::int64_t gb_global_size_[3], gb_local_size_[3];
static int gb_device_;
#define GB_GLOBAL_SIZE(d) (gb_global_size_[d])
#define GB_LOCAL_SIZE(d) (gb_local_size_[d])
#define GB_DEVICE (gb_device_)
)";

// The C type a step's argument has in the wrapper.
const std::string& c_type(const LaunchArg& a) {
  if (a.c_type.empty()) throw DeviceError("a spec argument without its C type reached the OpenMP step wrappers");
  return a.c_type;
}

class OpenmpOperations final : public Operations {
 public:
  OpenmpOperations(const DeviceInfo& d, OpenmpToolchain toolchain, std::unique_ptr<OpenmpMemory> memory)
      : info_(d), toolchain_(std::move(toolchain)), memory_(std::move(memory)) {}
  // The objects stay loaded for the process's life (a later load of one is the same handle): LLVM
  // 19's libomptarget, registering an object's offload image after another object was closed, read
  // the closed one's (SIGSEGV in llvm::identify_magic under __tgt_register_lib, the second point of
  // a run on omp_target_clang).
  ~OpenmpOperations() override {
    for (void* b : buffers_)
      if (b) memory_->release(b);
    std::error_code ec;
    if (!temp_.empty()) std::filesystem::remove_all(temp_, ec);
  }

  const DeviceInfo& device() const override { return info_; }

  // Compiled at the first run, when the steps (and so the wrappers) are known: never timed.
  int build(const std::string& source, bool, const std::vector<std::pair<std::string, std::string>>& defines,
            const std::string& what) override {
    programs_.push_back(Program{source, defines, what, {}});
    return static_cast<int>(programs_.size()) - 1;
  }

  int allocate(std::size_t bytes) override {
    buffers_.push_back(memory_->allocate(std::max<std::size_t>(bytes, 1)));
    return static_cast<int>(buffers_.size()) - 1;
  }
  void release(int buffer) override {
    void*& b = buffers_.at(static_cast<std::size_t>(buffer));
    if (b) memory_->release(b);
    b = nullptr;
  }
  void write(int buffer, const void* data, std::size_t bytes, std::size_t offset) override {
    memory_->write(data_of(buffer), offset, data, bytes);
  }
  void read(int buffer, void* data, std::size_t bytes, std::size_t offset) override {
    memory_->read(data, data_of(buffer), offset, bytes);
  }

  double run(int program, const std::vector<Launch>& steps, int times, std::vector<double>* each) override {
    Program& p = programs_.at(static_cast<std::size_t>(program));
    using Step = void (*)(void**, const std::int64_t*, int);
    std::vector<Step> calls;
    void* handle = load(p, steps);
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const std::string symbol = "gpubench_step_" + std::to_string(s);
      void* f = ::dlsym(handle, symbol.c_str());
      if (!f) throw DeviceError("the OpenMP object of " + p.what + " has no " + symbol + " (" + steps[s].kernel + ")");
      calls.push_back(reinterpret_cast<Step>(f));
    }
    // Each argument's address: a buffer's data pointer, or the scalar's bytes.
    std::vector<std::vector<void*>> argv(steps.size());
    std::vector<std::array<std::int64_t, 6>> geometry(steps.size());
    std::vector<std::vector<void*>> pointers(steps.size());
    for (std::size_t s = 0; s < steps.size(); ++s) {
      const Geometry& g = steps[s].geometry;
      geometry[s] = {static_cast<std::int64_t>(g.global.x), static_cast<std::int64_t>(g.global.y),
                     static_cast<std::int64_t>(g.global.z), static_cast<std::int64_t>(g.local.x),
                     static_cast<std::int64_t>(g.local.y), static_cast<std::int64_t>(g.local.z)};
      pointers[s].reserve(steps[s].args.size());
      for (const LaunchArg& a : steps[s].args) {
        if (a.buffer >= 0) {
          pointers[s].push_back(data_of(a.buffer));
          argv[s].push_back(&pointers[s].back());
        } else {
          argv[s].push_back(const_cast<unsigned char*>(a.bytes.data()));
        }
      }
    }
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    for (int t = 0; t < times; ++t)
      for (std::size_t s = 0; s < steps.size(); ++s) {
        const auto before = each ? clock::now() : clock::time_point{};
        calls[s](argv[s].data(), geometry[s].data(), toolchain_.device);
        if (each) (*each)[s] += std::chrono::duration<double>(clock::now() - before).count();
      }
    return std::chrono::duration<double>(clock::now() - start).count();
  }

 private:
  struct Program {
    std::string source;
    std::vector<std::pair<std::string, std::string>> defines;
    std::string what;
    std::map<std::string, void*> objects;  // by the wrappers' text
  };

  void* data_of(int buffer) const {
    void* b = buffers_.at(static_cast<std::size_t>(buffer));
    if (!b) throw Error(ExitCode::internal, "a released OpenMP spec buffer was used");
    return b;
  }

  // The shared object of `p` with wrappers for `steps`: loaded once, compiled when the disk
  // cache does not hold it. A DeviceError names the compiler, the configuration and its log.
  void* load(Program& p, const std::vector<Launch>& steps) {
    std::string wrappers;
    for (std::size_t s = 0; s < steps.size(); ++s) {
      wrappers += "extern \"C\" void gpubench_step_" + std::to_string(s) +
                  "(void** a, const std::int64_t* g, int device) { gb_device_ = device; for (int d = 0; d < 3; ++d) { "
                  "gb_global_size_[d] = g[d]; gb_local_size_[d] = g[3 + d]; } " + steps[s].kernel + "(";
      for (std::size_t i = 0; i < steps[s].args.size(); ++i)
        wrappers += (i ? ", *(" : "*(") + c_type(steps[s].args[i]) + "*)a[" + std::to_string(i) + "]";
      wrappers += "); }\n";
    }
    if (const auto it = p.objects.find(wrappers); it != p.objects.end()) return it->second;
    const std::string& compiler = toolchain_.compiler;
    std::vector<std::string> command = {compiler};
    for (const std::string& f : toolchain_.flags) command.push_back(f);
    for (const auto& [name, value] : p.defines) command.push_back("-D" + name + "=" + value);
    const std::string text = std::string(prelude) + p.source + "\n#line 1 \"gpubench's step wrappers\"\n" + wrappers;
    // -march=native: the host's processor is part of the key (a cache shared between machines).
    if (!asked_version_) {  // once for this device's configurations
      version_ = compiler_version(compiler, cannot_compile_);
      asked_version_ = true;
      // Another build under the same name (a GPU machine's own g++-12, without nvptx offloading,
      // where gpubench's is Debian's): not the compiler whose runtime the backend loads, so it
      // compiles nothing, and the objects the build's compiler made elsewhere are looked up.
      if (!version_.empty() && !toolchain_.built_version.empty() && version_ != toolchain_.built_version) {
        cannot_compile_ = "the OpenMP kernel compiler " + compiler + " here is " + version_ + ", not " +
                          toolchain_.built_version + ", which this backend was built with and whose runtime it loads: "
                          "install that one, or give a kernel cache it filled (GPUBENCH_KERNEL_CACHE)";
        version_.clear();
      }
    }
    const std::string& cannot_compile = cannot_compile_;
    if (version_.empty() && toolchain_.built_version.empty()) throw DeviceError(cannot_compile);
    const std::string& version = version_.empty() ? toolchain_.built_version : version_;
    std::string key = "gpubench openmp spec object 3\n" + info_.backend + "\n" + (toolchain_.device_in_key ? info_.name : "") +
                      "\n" + compiler + "\n" + version + "\n";
    for (std::size_t i = 1; i < command.size(); ++i) key += command[i] + "\n";
    key += without_folders(text);
    const std::string name = kernel_cache_hash(key);
    std::string dir = kernel_cache_dir(toolchain_.cache);
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (dir.empty() || ec) {
      if (!dir.empty() && !said_uncached_)
        std::cerr << "gpubench: cannot write the OpenMP kernel cache " << dir << ": kernels are compiled in a temporary folder" << std::endl;
      said_uncached_ = true;
      dir = temporary_dir();
    }
    const std::string object = dir + "/" + name + ".so", key_file = dir + "/" + name + ".key";
    if (read_file(key_file) != key || !std::filesystem::exists(object)) {
      if (!cannot_compile.empty())
        throw DeviceError(cannot_compile + "; the kernel cache " + dir + " holds no object of " + p.what + " made by " + version);
      const std::string tmp = dir + "/" + name + ".tmp" + std::to_string(::getpid());
      {
        std::ofstream out(tmp + ".cpp", std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) throw DeviceError("cannot write " + tmp + ".cpp, the OpenMP source of " + p.what);
      }
      command.push_back("-o");
      command.push_back(tmp + ".so");
      command.push_back(tmp + ".cpp");
      std::cerr << "gpubench: compiling " << p.what << " with " << compiler << " (OpenMP)..." << std::endl;
      const auto t0 = std::chrono::steady_clock::now();
      std::string log;
      const int status = run_captured(command, log);
      std::filesystem::remove(tmp + ".cpp", ec);
      if (status != 0) {
        std::filesystem::remove(tmp + ".so", ec);
        std::string shown;
        for (const std::string& c : command) shown += (shown.empty() ? "" : " ") + c;
        throw DeviceError("the OpenMP source of " + p.what + " does not compile with " + version +
                          " (" + (status < 0 ? "not started" : "exit status " + std::to_string(status)) + "; " + shown +
                          "):\n" + log);
      }
      std::cerr << "gpubench: compiled in " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                << " s" << std::endl;
      std::filesystem::rename(tmp + ".so", object, ec);
      if (ec) throw DeviceError("cannot keep the OpenMP object " + object + ": " + ec.message());
      std::ofstream(key_file + ".tmp" + std::to_string(::getpid()), std::ios::binary) << key;
      std::filesystem::rename(key_file + ".tmp" + std::to_string(::getpid()), key_file, ec);
    }
    void* handle = ::dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw DeviceError("cannot load the OpenMP object of " + p.what + " (" + object + "): " + ::dlerror());
    return p.objects[wrappers] = handle;
  }

  // A folder of this process's own for objects where the cache cannot be written, removed at exit.
  const std::string& temporary_dir() {
    if (temp_.empty()) {
      char pattern[] = "/tmp/gpubench-openmp-XXXXXX";
      if (!::mkdtemp(pattern)) throw DeviceError(std::string("cannot make a folder for OpenMP objects: ") + std::strerror(errno));
      temp_ = pattern;
    }
    return temp_;
  }

  DeviceInfo info_;
  OpenmpToolchain toolchain_;
  std::unique_ptr<OpenmpMemory> memory_;
  std::vector<Program> programs_;
  std::vector<void*> buffers_;
  bool asked_version_ = false;
  std::string version_, cannot_compile_;  // the compiler's --version line, or why it does not run
  std::string temp_;
  bool said_uncached_ = false;

 public:
  OpenmpOperations(const OpenmpOperations&) = delete;
  OpenmpOperations& operator=(const OpenmpOperations&) = delete;
};

}  // namespace

std::unique_ptr<Operations> make_openmp_operations(const DeviceInfo& device, OpenmpToolchain toolchain,
                                                   std::unique_ptr<OpenmpMemory> memory) {
  return std::make_unique<OpenmpOperations>(device, std::move(toolchain), std::move(memory));
}

}  // namespace gpubench::spec
