// What a binary was built from, for result records.
#pragma once

namespace gpubench {

// The git commit of the sources at build time (short hash, "-dirty" if tracked files were
// changed, "unknown" outside git); cmake/commit.cmake writes it on every build.
extern const char* const build_commit;

}  // namespace gpubench
