// User UDFs of examples/mineru.rop. Read by the UDF binding pass (a later issue).
#pragma once

#include <optional>
#include <string>

std::string fix_hyphens(const std::string& page_text, const std::optional<std::string>& title);
std::string assemble_markdown(const std::string& pdf_path, const std::string& body);
