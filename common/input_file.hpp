// Reading a file a user names: only a regular file (or a named pipe), and never more than the
// format can hold, so that /dev/zero, a directory or a device is refused by name instead of
// filling the host's memory or reading as an empty file.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.hpp"

namespace gpubench {

// InputError "WHAT PATH: is a directory" (a character device, ...) unless `path` is a regular
// file or a named pipe. One that cannot be looked at (missing) passes: opening it says why.
inline void check_input_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) return;
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISCHR(st.st_mode)  ? "a character device"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a regular file";
  throw InputError(what + " " + path + ": is " + kind + ", not a file");
}

// The whole of `path`, checked as above, at most `max_bytes` (an InputError naming the limit
// past it: what the format can hold, not what the host has).
inline std::string read_input_file(const std::string& path, const std::string& what, std::uint64_t max_bytes) {
  check_input_file(path, what);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(what + " " + path + ": cannot read it: " + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw InputError(what + " " + path + ": cannot read it: " + std::strerror(e));
    }
    if (n == 0) break;
    if (text.size() + static_cast<std::uint64_t>(n) > max_bytes) {
      ::close(fd);
      const std::string limit = max_bytes >= (1u << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                                         : std::to_string(max_bytes) + " bytes";
      throw InputError(what + " " + path + ": larger than " + limit + ", more than such a file holds");
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

// Whether `text` holds a NUL byte, the mark of a binary file where text is expected; its offset.
inline bool holds_nul(const std::string& text, std::size_t* offset = nullptr) {
  const auto at = text.find('\0');
  if (offset) *offset = at;
  return at != std::string::npos;
}

}  // namespace gpubench
