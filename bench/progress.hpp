// What a long step is doing, said while it does it. A point's setup (generating a problem,
// uploading it, building programs) or its host reference can take minutes on a large problem; a
// Phase names such a step, and once it has run for `quiet_s` seconds a line says so on stderr
// ("gpubench:   cg/poisson2d:4096/cuda:0/form1/f64: the host reference solve (5 s so far)"), then
// every 30 s, and when it ends ("... done in 92 s"). Short steps say nothing.
#pragma once

#include <string>

namespace gpubench::progress {

// How long a phase runs before it is said.
inline constexpr double quiet_s = 5;

// The point (or other work) that the phases below belong to, for their lines; "" between points.
void set_subject(const std::string& subject);

class Phase {
 public:
  explicit Phase(const std::string& what);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  std::string previous_;
};

}  // namespace gpubench::progress
