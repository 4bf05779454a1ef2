// `PIPELINE --selfcheck`: whether this node can run the binary — libraries loaded, Tesseract's
// language data found, GPUs and driver, output folders writable — and, for a bundle (ropc build
// --bundle), Tesseract pointed at the bundle's own language data. docs/shipping.md.
#pragma once

#include <iosfwd>
#include <vector>

#include "rop/runtime/pipeline_main.h"

namespace rop::runtime::detail {

// Takes `--selfcheck` out of `arguments` (argv with the program name first); true when it was
// there. The rest are the run's flags, whose outputs the check looks at.
bool take_selfcheck_flag(std::vector<const char*>& arguments);

// Prints one line per check on `out`; returns 0 when all pass, 1 (listing the failed) otherwise.
int run_selfcheck(const PipelineDefinition& def, std::vector<const char*> arguments,
                  std::ostream& out);

// A binary in a bundle's bin/ with share/tessdata beside it: sets TESSDATA_PREFIX to that folder
// unless the environment sets one, so Tesseract loads the bundle's language data.
void use_bundled_tessdata();

}  // namespace rop::runtime::detail
