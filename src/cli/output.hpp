// The CLI's output formats for a walkthrough: torch (the notebook), json, csv, markdown.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "walkthrough.hpp"

namespace ca {

enum class Format { Torch, Json, Csv, Markdown };

// Writes the selected `stages`, in the order given, to `out` as it goes: a T = 1024 CSV is
// hundreds of megabytes and is never held in memory.
void render(std::ostream& out, const Walkthrough& w, const std::vector<const Stage*>& stages,
            Format format);

// Text in a Markdown table cell, the rule the page's Markdown export shares
// (tests/golden/markdown_cells.json): every control character (C0, DEL, C1) becomes a space, so a
// label stays on its row, and every ASCII punctuation character gets a backslash, so no `|`,
// `<img>`, `~~`, `$`, `*` or autolink is ever markup.
std::string markdown_cell(std::string_view text);

}  // namespace ca
