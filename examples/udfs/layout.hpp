// User UDFs of examples/layout_regions.rop. Read by the UDF binding pass (a later issue).
#pragma once

#include <string>

std::string detect_language(const std::string& pdf_path);
std::string number_page(const std::string& page_text, int page_number);
std::string assemble_document(const std::string& pdf_path, const std::string& body);
