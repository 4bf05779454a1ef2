// UDFs of tests/batch_failure: a batch UDF that throws rop::RecordFailure when its batch holds
// the line "bad", naming every line of that batch in the reason, and one that fails that line
// alone through rop::ItemResult.
#pragma once

#include <rop/udf.h>

#include <span>
#include <string>
#include <vector>

namespace shout {

struct Line {
    std::string text;
};

// expand: one Line per line of the text.
std::vector<Line> lines(const std::string& text);

// batch map: the lines in upper case; rop::RecordFailure("batch [a, bad, c] holds 'bad'") when
// one of them is "bad". The first call waits a little, so the lines after the first are
// batched together whatever the schedule.
std::vector<std::string> shout_all(std::span<const Line> lines);

// batch map with per-item results: the lines in upper case, and rop::fail_item("line 'bad' is
// bad") for the line "bad" alone; the rest of its batch is published, nothing replayed.
std::vector<rop::ItemResult<std::string>> shout_each(std::span<const Line> lines);

// map: the line in upper case; raises SIGSEGV on the line "bad" (run under isolation process:
// only its worker dies).
std::string shout_or_crash(const Line& line);

// reduce: the lines of one file, one per line.
std::string join(std::span<const std::string> lines);

}  // namespace shout
