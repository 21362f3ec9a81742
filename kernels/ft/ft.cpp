#include "kernels/ft/ft.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>

#include "common/errors.hpp"

namespace gpubench::ft {

namespace {

// NAS's official checksums (NPB 3.x ft verify), iteration 1 first.
const std::array<FtClass, 6> classes{{
    {'S', 64, 64, 64, 6,
     {Complex(5.546087004964e+02, 4.845363331978e+02), Complex(5.546385409189e+02, 4.865304269511e+02),
      Complex(5.546148406171e+02, 4.883910722336e+02), Complex(5.545423607415e+02, 4.901273169046e+02),
      Complex(5.544255039624e+02, 4.917475857993e+02), Complex(5.542683411902e+02, 4.932597244941e+02)}},
    {'W', 128, 128, 32, 6,
     {Complex(5.673612178944e+02, 5.293246849175e+02), Complex(5.631436885271e+02, 5.282149986629e+02),
      Complex(5.594024089970e+02, 5.270996558037e+02), Complex(5.560698047020e+02, 5.260027904925e+02),
      Complex(5.530898991250e+02, 5.249400845633e+02), Complex(5.504159734538e+02, 5.239212247086e+02)}},
    {'A', 256, 256, 128, 6,
     {Complex(5.046735008193e+02, 5.114047905510e+02), Complex(5.059412319734e+02, 5.098809666433e+02),
      Complex(5.069376896287e+02, 5.098144042213e+02), Complex(5.077892868474e+02, 5.101336130759e+02),
      Complex(5.085233095391e+02, 5.104914655194e+02), Complex(5.091487099959e+02, 5.107917842803e+02)}},
    {'B', 512, 256, 256, 20,
     {Complex(5.177643571579e+02, 5.077803458597e+02), Complex(5.154521291263e+02, 5.088249431599e+02),
      Complex(5.146409228649e+02, 5.096208912659e+02), Complex(5.142378756213e+02, 5.101023387619e+02),
      Complex(5.139626667737e+02, 5.103976610617e+02), Complex(5.137423460082e+02, 5.105948019802e+02),
      Complex(5.135547056878e+02, 5.107404165783e+02), Complex(5.133910925466e+02, 5.108576573661e+02),
      Complex(5.132470705390e+02, 5.109577278523e+02), Complex(5.131197729984e+02, 5.110460304483e+02),
      Complex(5.130070319283e+02, 5.111252433800e+02), Complex(5.129070537032e+02, 5.111968077718e+02),
      Complex(5.128182883502e+02, 5.112616233064e+02), Complex(5.127393733383e+02, 5.113203605551e+02),
      Complex(5.126691062020e+02, 5.113735928093e+02), Complex(5.126064276004e+02, 5.114218460548e+02),
      Complex(5.125504076570e+02, 5.114656139760e+02), Complex(5.125002331720e+02, 5.115053595966e+02),
      Complex(5.124551951846e+02, 5.115415130407e+02), Complex(5.124146770029e+02, 5.115744692211e+02)}},
    {'C', 512, 512, 512, 20,
     {Complex(5.195078707457e+02, 5.149019699238e+02), Complex(5.155422171134e+02, 5.127578201997e+02),
      Complex(5.144678022222e+02, 5.122251847514e+02), Complex(5.140150594328e+02, 5.121090289018e+02),
      Complex(5.137550426810e+02, 5.121143685824e+02), Complex(5.135811056728e+02, 5.121496764568e+02),
      Complex(5.134569343165e+02, 5.121870921893e+02), Complex(5.133651975661e+02, 5.122193250322e+02),
      Complex(5.132955192805e+02, 5.122454735794e+02), Complex(5.132410471738e+02, 5.122663649603e+02),
      Complex(5.131971141679e+02, 5.122830879827e+02), Complex(5.131605205716e+02, 5.122965869718e+02),
      Complex(5.131290734194e+02, 5.123075927445e+02), Complex(5.131012720314e+02, 5.123166486553e+02),
      Complex(5.130760908195e+02, 5.123241541685e+02), Complex(5.130528295923e+02, 5.123304037599e+02),
      Complex(5.130310107773e+02, 5.123356167976e+02), Complex(5.130103090133e+02, 5.123399592211e+02),
      Complex(5.129905029333e+02, 5.123435588985e+02), Complex(5.129714421109e+02, 5.123465164008e+02)}},
    {'D', 2048, 1024, 1024, 25,
     {Complex(5.122230065252e+02, 5.118534037109e+02), Complex(5.120463975765e+02, 5.117061181082e+02),
      Complex(5.119865766760e+02, 5.117096364601e+02), Complex(5.119518799488e+02, 5.117373863950e+02),
      Complex(5.119269088223e+02, 5.117680347632e+02), Complex(5.119082416858e+02, 5.117967875532e+02),
      Complex(5.118943814638e+02, 5.118225281841e+02), Complex(5.118842385057e+02, 5.118451629348e+02),
      Complex(5.118769435632e+02, 5.118649119387e+02), Complex(5.118718203448e+02, 5.118820803844e+02),
      Complex(5.118683569061e+02, 5.118969781011e+02), Complex(5.118661708593e+02, 5.119098918835e+02),
      Complex(5.118649768950e+02, 5.119210777066e+02), Complex(5.118645605626e+02, 5.119307604484e+02),
      Complex(5.118647586618e+02, 5.119391362671e+02), Complex(5.118654451572e+02, 5.119463757241e+02),
      Complex(5.118665212451e+02, 5.119526269238e+02), Complex(5.118679083821e+02, 5.119580184108e+02),
      Complex(5.118695433664e+02, 5.119626617538e+02), Complex(5.118713748264e+02, 5.119666538138e+02),
      Complex(5.118733606701e+02, 5.119700787219e+02), Complex(5.118754661974e+02, 5.119730095953e+02),
      Complex(5.118776626738e+02, 5.119755100241e+02), Complex(5.118799262314e+02, 5.119776353561e+02),
      Complex(5.118822370068e+02, 5.119794338060e+02)}},
}};

}  // namespace

int frequency(int i, int n) { return (i + n / 2) % n - n / 2; }

const FtClass& ft_class(const std::string& spec) {
  std::string name = spec.rfind("npb:", 0) == 0 ? spec.substr(4) : spec;
  if (name.size() == 1)
    for (const FtClass& c : classes)
      if (c.name == name[0]) return c;
  throw InputError("unknown NAS FT class '" + spec + "': valid classes are S, W, A, B, C, D (or npb:X)");
}

void initial_conditions(const FtClass& c, Complex* u) {
  const std::uint64_t plane = 2 * static_cast<std::uint64_t>(c.nx) * static_cast<std::uint64_t>(c.ny);
  const std::uint64_t step = lcg_power(multiplier, plane);
  std::vector<std::uint64_t> starts(static_cast<std::size_t>(c.nz));
  std::uint64_t x = seed;
  for (auto& s : starts) {
    s = x;
    x = nas::lcg_next(x, step);
  }
#pragma omp parallel for schedule(static)
  for (int k = 0; k < c.nz; ++k) {
    std::uint64_t state = starts[static_cast<std::size_t>(k)];
    Complex* p = u + static_cast<std::int64_t>(k) * c.nx * c.ny;
    for (std::int64_t e = 0; e < static_cast<std::int64_t>(c.nx) * c.ny; ++e) {
      state = nas::lcg_next(state);
      const double re = nas::to_unit(state);
      state = nas::lcg_next(state);
      p[e] = Complex(re, nas::to_unit(state));
    }
  }
}

void evolve_factors(const FtClass& c, double* twiddle) {
  const double ap = -4.0 * alpha * std::numbers::pi * std::numbers::pi;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < c.nz; ++k) {
    const int kk = frequency(k, c.nz);
    for (int j = 0; j < c.ny; ++j) {
      const int jj = frequency(j, c.ny);
      double* row = twiddle + (static_cast<std::int64_t>(k) * c.ny + j) * c.nx;
      for (int i = 0; i < c.nx; ++i) {
        const int ii = frequency(i, c.nx);
        row[i] = std::exp(ap * static_cast<double>(ii * ii + jj * jj + kk * kk));
      }
    }
  }
}

Complex checksum(const FtClass& c, const Complex* u) {
  Complex sum(0, 0);
  for (int j = 1; j <= 1024; ++j) {
    const int q = j % c.nx, r = (3 * j) % c.ny, s = (5 * j) % c.nz;
    sum += u[(static_cast<std::int64_t>(s) * c.ny + r) * c.nx + q];
  }
  return sum / static_cast<double>(c.total());
}

Verdict verify(const FtClass& c, const std::vector<Complex>& sums) {
  Verdict v;
  if (sums.size() != static_cast<std::size_t>(c.niter)) {
    v.detail = "class " + std::string(1, c.name) + " has " + std::to_string(c.niter) + " checksums, got " +
               std::to_string(sums.size());
    return v;
  }
  v.passed = true;
  char line[200];
  for (int t = 0; t < c.niter; ++t) {
    const Complex ref = c.checksums[static_cast<std::size_t>(t)];
    const double error = std::abs((sums[static_cast<std::size_t>(t)] - ref) / ref);
    if (!(error <= tolerance) && v.passed) {
      v.passed = false;
      std::snprintf(line, sizeof line, "iteration %d: checksum (%.12e, %.12e), NAS's (%.12e, %.12e): relative error %.2e > %.0e",
                    t + 1, sums[static_cast<std::size_t>(t)].real(), sums[static_cast<std::size_t>(t)].imag(),
                    ref.real(), ref.imag(), error, tolerance);
      v.detail = line;
    }
    if (!(error <= v.worst)) v.worst = error;
  }
  if (v.passed) {
    std::snprintf(line, sizeof line, "class %c: all %d checksums within %.0e of NAS's (worst %.2e)", c.name, c.niter,
                  tolerance, v.worst);
    v.detail = line;
  }
  return v;
}

double nas_operations(const FtClass& c) {
  const double n = static_cast<double>(c.total());
  return n * (14.8157 + 7.19641 * std::log(n) + (5.23518 + 7.21113 * std::log(n)) * c.niter);
}

double min_bytes(const FtClass& c) {
  const double field = 16 * static_cast<double>(c.total()), ffts = 1 + c.niter;
  return field * (6 * ffts - 1) + c.niter * 1024.0 * 16;
}

}  // namespace gpubench::ft
