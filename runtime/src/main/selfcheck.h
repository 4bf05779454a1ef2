// `PIPELINE --selfcheck`: whether this node can run the binary — libraries loaded, Tesseract's
// language data found, GPUs and driver, output folders writable — and, for a bundle (ropc build
// --bundle), Tesseract pointed at the bundle's own language data. docs/shipping.md.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "rop/runtime/pipeline_main.h"

namespace rop::runtime::detail {

// Takes `--selfcheck` out of `arguments` (argv with the program name first); true when it was
// there. The rest are the run's flags, whose outputs the check looks at.
bool take_selfcheck_flag(std::vector<const char*>& arguments);

// Prints one line per check on `out`; returns 0 when all pass, 1 (listing the failed) otherwise.
int run_selfcheck(const PipelineDefinition& def, std::vector<const char*> arguments,
                  std::ostream& out);

// How the run writes a file of its own: in place (the journal, --trace) or to a temp file
// beside it, PATH.tmp.PID, that is renamed over it (--report, --metrics-file).
enum class FileWrite { InPlace, Replace };

// Why the run could not write the file `path`: its folder does not exist (or is a file), the
// path is a folder, a file that stays in place is not writable, or no file can be created in
// the folder (the temp file's name, `PATH.tmp.PID`, is created and removed to see). "" when it
// can. The run asks before it starts; --selfcheck asks the same.
std::string output_file_problem(const std::string& path, FileWrite how);

// A binary in a bundle's bin/ with share/tessdata beside it: sets TESSDATA_PREFIX to that folder
// unless the environment sets one, so Tesseract loads the bundle's language data.
void use_bundled_tessdata();

}  // namespace rop::runtime::detail
