// The CLI's output formats for a walkthrough: torch (the notebook), json, csv, markdown.
#pragma once

#include <string>
#include <vector>

#include "walkthrough.hpp"

namespace ca {

enum class Format { Torch, Json, Csv, Markdown };

// `stages` are the selected stages, in the order they are to be printed.
std::string render(const Walkthrough& w, const std::vector<const Stage*>& stages, Format format);

}  // namespace ca
