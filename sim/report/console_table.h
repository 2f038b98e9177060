#pragma once
// Text for the console: tables whose columns are as wide as their widest cell, long names cut with '~', lines
// wrapped at word boundaries, and the closing "wrote ..." line of a command. Everything fits kConsoleColumns unless
// the caller asks for every column.
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

namespace roofsim {

// The console's width the tables and lines fit by default.
inline constexpr std::size_t kConsoleColumns = 120;

struct TableColumn {
  std::string name;
  std::string unit;   // printed on a second header line; no unit line when no column has one
  bool left = false;  // text columns are left-aligned, numbers right-aligned
};

// A name cut to `width` characters, its end replaced by '~' when cut, so that a long op name does not widen a table.
[[nodiscard]] std::string fitted(const std::string& text, std::size_t width);

// The width of each column: its widest of name, unit and cells.
[[nodiscard]] std::vector<std::size_t> column_widths(const std::vector<TableColumn>& columns,
                                                     const std::vector<std::vector<std::string>>& rows);
// The width of a table's lines: the columns with two spaces between them.
[[nodiscard]] std::size_t table_width(const std::vector<std::size_t>& widths);

// Writes a table: the column names, their units, a rule, then the rows; each column as wide as its widest cell.
void print_table(const std::vector<TableColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                 std::ostream& out);

// `text` broken at spaces into lines of at most `width` characters (a word longer than that stays whole); lines after
// the first start with `continuation`. No trailing line break.
[[nodiscard]] std::string wrap_words(const std::string& text, std::size_t width, const std::string& continuation);

// "wrote N files to DIR/: a, b, c" wrapped within kConsoleColumns, with `note` (e.g. of the finished ops) after the
// list. The folder is named once, however many files.
void write_wrote_line(const std::filesystem::path& dir, const std::vector<std::string>& files, const std::string& note,
                      std::ostream& out);

}  // namespace roofsim
