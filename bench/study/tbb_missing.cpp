// Built when oneTBB is missing: the tbb-lineage strategy reports why it cannot run.
#include <stdexcept>

#include "study.h"

namespace rop::study {

void run_tbb_lineage(const RunConfig&, const Corpus&, const CostModel&, Recorder&, std::string&) {
    throw std::runtime_error("tbb-lineage: built without oneTBB (install libtbb-dev)");
}

}  // namespace rop::study
