#include "kernels/cg/partition.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "common/errors.hpp"

namespace gpubench::cg {

std::int64_t Partition::halo_entries() const {
  std::int64_t n = 0;
  for (const Band& b : bands) n += b.halo_size();
  return n;
}

namespace {

// Row boundaries: band k gets rows [cut[k], cut[k+1]). Each cut is the row boundary nearest to
// k/parts of the nonzeros, moved so that every band keeps at least one row.
std::vector<std::int32_t> cuts_by_nonzeros(const CsrMatrix& a, int parts) {
  std::vector<std::int32_t> cut(static_cast<std::size_t>(parts) + 1, 0);
  cut[static_cast<std::size_t>(parts)] = a.rows;
  const double total = static_cast<double>(a.nnz());
  for (int k = 1; k < parts; ++k) {
    const double target = total * k / parts;
    // the first boundary r with row_ptr[r] >= target, or the one before it where that is nearer
    const auto it = std::lower_bound(a.row_ptr.begin(), a.row_ptr.end(), target,
                                     [](std::int32_t v, double t) { return static_cast<double>(v) < t; });
    auto r = static_cast<std::int32_t>(it - a.row_ptr.begin());  // at most rows: row_ptr[rows] = nnz
    const auto at = [&](std::int32_t i) { return static_cast<double>(a.row_ptr[static_cast<std::size_t>(i)]); };
    if (r > 0 && target - at(r - 1) < at(r) - target) --r;
    const std::int32_t lowest = cut[static_cast<std::size_t>(k) - 1] + 1;
    const std::int32_t highest = a.rows - (parts - k);
    cut[static_cast<std::size_t>(k)] = std::clamp(r, lowest, highest);
  }
  return cut;
}

}  // namespace

Partition partition_rows(const CsrMatrix& a, int parts) {
  if (a.rows != a.cols)
    throw InputError("partitioning needs a square matrix (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ")");
  if (parts < 1 || parts > a.rows)
    throw InputError("cannot split " + std::to_string(a.rows) + " rows into " + std::to_string(parts) +
                     " bands (at least 1, at most one per row)");
  const std::vector<std::int32_t> cut = cuts_by_nonzeros(a, parts);
  auto owner = [&](std::int32_t col) {
    return static_cast<int>(std::upper_bound(cut.begin(), cut.end(), col) - cut.begin()) - 1;
  };
  Partition p;
  p.rows = a.rows;
  p.bands.resize(static_cast<std::size_t>(parts));
  for (int k = 0; k < parts; ++k) {
    Band& band = p.bands[static_cast<std::size_t>(k)];
    const std::int32_t first = cut[static_cast<std::size_t>(k)], last = cut[static_cast<std::size_t>(k) + 1];
    band.first_row = first;
    // The columns outside the band, by owner (std::map keeps owners and columns ascending).
    std::map<int, std::vector<std::int32_t>> outside;
    for (std::int32_t i = a.row_ptr[static_cast<std::size_t>(first)]; i < a.row_ptr[static_cast<std::size_t>(last)]; ++i) {
      const std::int32_t c = a.col_idx[static_cast<std::size_t>(i)];
      if (c < first || c >= last) outside[owner(c)].push_back(c);
    }
    std::map<std::int32_t, std::int32_t> local;  // global halo column -> local column
    const std::int32_t rows = last - first;
    for (auto& [from, cols] : outside) {
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      HaloLink link{from, cols, band.halo_size()};
      for (std::int32_t c : cols) {
        local[c] = rows + band.halo_size();
        band.halo.push_back(c);
      }
      band.receives.push_back(std::move(link));
    }
    CsrMatrix& b = band.a;
    b.rows = rows;
    b.cols = rows + band.halo_size();
    b.row_ptr.assign(1, 0);
    for (std::int32_t r = first; r < last; ++r) {
      const auto begin = static_cast<std::size_t>(a.row_ptr[static_cast<std::size_t>(r)]);
      const auto end = static_cast<std::size_t>(a.row_ptr[static_cast<std::size_t>(r) + 1]);
      // Own columns keep their order; the halo's local numbers are above every own column and
      // ascend with the global column within one owner, so sorting the row's local columns is
      // needed only where owners interleave (a row reaching both below and above its band).
      std::vector<std::pair<std::int32_t, double>> row;
      row.reserve(end - begin);
      for (std::size_t i = begin; i < end; ++i) {
        const std::int32_t c = a.col_idx[i];
        row.emplace_back(c >= first && c < last ? c - first : local.at(c), a.values[i]);
      }
      std::sort(row.begin(), row.end());
      for (const auto& [c, v] : row) {
        b.col_idx.push_back(c);
        b.values.push_back(v);
      }
      b.row_ptr.push_back(static_cast<std::int32_t>(b.col_idx.size()));
    }
    // A row reads the halo when its last (largest local) column is past the own rows.
    for (std::int32_t r = 0, run = 0; r < rows; ++r) {
      const std::int32_t end = b.row_ptr[static_cast<std::size_t>(r) + 1];
      const bool own = end == b.row_ptr[static_cast<std::size_t>(r)] || b.col_idx[static_cast<std::size_t>(end) - 1] < rows;
      run = own ? run + 1 : 0;
      if (run > band.interior_rows) {
        band.interior_rows = run;
        band.interior_first = r + 1 - run;
      }
    }
  }
  // Each receive is another band's send, in that band's own local rows.
  for (int k = 0; k < parts; ++k)
    for (const HaloLink& r : p.bands[static_cast<std::size_t>(k)].receives) {
      Band& from = p.bands[static_cast<std::size_t>(r.band)];
      HaloLink send{k, {}, r.offset};
      send.entries.reserve(r.entries.size());
      for (std::int32_t c : r.entries) send.entries.push_back(c - from.first_row);
      from.sends.push_back(std::move(send));
    }
  for (Band& band : p.bands)
    std::sort(band.sends.begin(), band.sends.end(), [](const HaloLink& x, const HaloLink& y) { return x.band < y.band; });
  return p;
}

std::span<const double> band_slice(const Partition& p, int band, std::span<const double> whole) {
  const Band& b = p.bands.at(static_cast<std::size_t>(band));
  return whole.subspan(static_cast<std::size_t>(b.first_row), static_cast<std::size_t>(b.rows()));
}

std::vector<double> gather_halo(const Partition& p, int band, std::span<const double> x) {
  std::vector<double> halo(p.bands.at(static_cast<std::size_t>(band)).halo.size());
  for (std::size_t from = 0; from < p.bands.size(); ++from)
    for (const HaloLink& send : p.bands[from].sends)  // what `from` sends, from its own rows
      if (send.band == band)
        for (std::size_t i = 0; i < send.entries.size(); ++i)
          halo[static_cast<std::size_t>(send.offset) + i] =
              band_slice(p, static_cast<int>(from), x)[static_cast<std::size_t>(send.entries[i])];
  return halo;
}

}  // namespace gpubench::cg
