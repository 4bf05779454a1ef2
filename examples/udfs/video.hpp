// User UDFs of examples/video_captions.rop. Read by the UDF binding pass (a later issue).
#pragma once

#include <optional>
#include <string>
#include <vector>

std::string merge_video_record(const std::string& meta, const std::vector<std::string>& captions,
                               const std::optional<std::string>& speech);
