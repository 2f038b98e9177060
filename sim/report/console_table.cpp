#include "sim/report/console_table.h"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

namespace roofsim {

std::string fitted(const std::string& text, std::size_t width) {
  if (text.size() <= width || width < 2) return text;
  return text.substr(0, width - 1) + "~";
}

std::vector<std::size_t> column_widths(const std::vector<TableColumn>& columns,
                                       const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths(columns.size());
  for (std::size_t c = 0; c < columns.size(); ++c) {
    widths[c] = std::max(columns[c].name.size(), columns[c].unit.size());
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  return widths;
}

std::size_t table_width(const std::vector<std::size_t>& widths) {
  std::size_t total = 0;
  for (const auto width : widths) total += width + 2;
  return total < 2 ? 0 : total - 2;
}

void print_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                 std::ostream& out) {
  const auto widths = column_widths(columns, rows);
  const auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      line += columns[c].left ? fmt::format("{:<{}}", cells[c], widths[c]) : fmt::format("{:>{}}", cells[c], widths[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  std::vector<std::string> names, units;
  bool any_unit = false;
  for (const auto& column : columns) {
    names.push_back(column.name);
    units.push_back(column.unit);
    any_unit = any_unit || !column.unit.empty();
  }
  print_row(names);
  if (any_unit) print_row(units);
  out << std::string(table_width(widths), '-') << "\n";
  for (const auto& row : rows) print_row(row);
}

std::string wrap_words(const std::string& text, std::size_t width, const std::string& continuation) {
  std::string wrapped, line;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const auto word = text.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      wrapped += line + "\n";
      line = continuation + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
  }
  return wrapped + line;
}

void write_wrote_line(const std::filesystem::path& dir, const std::vector<std::string>& files, const std::string& note,
                      std::ostream& out) {
  std::string list;
  for (const auto& file : files) list += (list.empty() ? "" : ", ") + file;
  auto folder = dir.string();
  if (folder.empty() || folder.back() != '/') folder += '/';
  const auto text = fmt::format("wrote {} file{} to {}: {}{}", files.size(), files.size() == 1 ? "" : "s", folder, list,
                                note.empty() ? "" : " " + note);
  out << wrap_words(text, kConsoleColumns, "  ") << "\n";
}

}  // namespace roofsim
