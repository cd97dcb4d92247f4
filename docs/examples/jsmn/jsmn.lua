-- Mutants of jsmn.h: four that break what a fix commit (or its tests)
-- pinned down, then operator mutants generated over the file.

mutant {
  name = "jsmn-links-close-mismatched-bracket",
  file = "jsmn.h",
  find = "          if (token->type != type) {\n            return JSMN_ERROR_INVAL;\n          }\n          token->end = parser->pos + 1;\n          parser->toksuper = token->parent;",
  replace = "          token->end = parser->pos + 1;\n          parser->toksuper = token->parent;",
  guards = { "test_links", "test_strict_links" },
  designed_against = "958c758: with parent links, a '}' must not close a '[' (and the reverse)",
  why = "\"[10}\" parses as a complete array when JSMN_PARENT_LINKS is on",
}

mutant {
  name = "jsmn-unmatched-closing-bracket",
  file = "jsmn.h",
  find = "      if (i == -1) {\n        return JSMN_ERROR_INVAL;",
  replace = "      if (0) {\n        return JSMN_ERROR_INVAL;",
  guards = { "test_default", "test_strict" },
  designed_against = "4ce4404: a closing bracket with no open one is an error",
  why = "\"{\\\"a\\\": 1}}\" and \"]\" parse without error",
}

mutant {
  name = "jsmn-unicode-escape-accepts-any-character",
  file = "jsmn.h",
  find = "(js[parser->pos] >= 97 && js[parser->pos] <= 102))) { /* a-f */",
  replace = "1)) { /* a-f */",
  guards = { "test_default", "test_strict", "test_links", "test_strict_links" },
  designed_against = "f190d18: \\u must be followed by four hexadecimal digits",
  why = "\"\\uZZZZ\" is accepted in a string",
}

mutant {
  name = "jsmn-unclosed-object-is-complete",
  file = "jsmn.h",
  find = "      if (tokens[i].start != -1 && tokens[i].end == -1) {\n        return JSMN_ERROR_PART;",
  replace = "      if (tokens[i].start != -1 && tokens[i].end == -1) {\n        break;",
  guards = { "test_default", "test_strict", "test_links", "test_strict_links" },
  designed_against = "a983a76 and later: input that ends inside an object or array is partial (JSMN_ERROR_PART)",
  why = "\"{\\\"a\\\": 1\" parses as complete",
}

-- Operator mutants of two classes only: this loop makes the relational
-- and logical swaps itself (generate { files = { "jsmn.h" } } would make
-- every class), one mutant per operator on each code line of the function
-- bodies (comments, strings and preprocessor lines left alone).
local swap = { ["=="] = "!=", ["!="] = "==", ["<="] = "<", [">="] = ">",
               ["<"] = "<=", [">"] = ">=", ["&&"] = "||", ["||"] = "&&" }
local word = { ["=="] = "eq", ["!="] = "ne", ["<="] = "le", [">="] = "ge",
               ["<"] = "lt", [">"] = "gt", ["&&"] = "and", ["||"] = "or" }

-- The operators of one line of code: { pos, op } in order.
local function operators(line)
  local ops, i, n = {}, 1, #line
  while i <= n do
    local c, two = line:sub(i, i), line:sub(i, i + 1)
    if two == "/*" or two == "//" then break
    elseif c == '"' or c == "'" then          -- skip a literal
      local j = i + 1
      while j <= n and line:sub(j, j) ~= c do j = j + (line:sub(j, j) == "\\" and 2 or 1) end
      i = j + 1
    elseif two == "->" or two == "<<" or two == ">>" then i = i + 2
    elseif swap[two] then ops[#ops + 1] = { i, two }; i = i + 2
    elseif (c == "<" or c == ">") then ops[#ops + 1] = { i, c }; i = i + 1
    else i = i + 1 end
  end
  return ops
end

local text = tdaudit.read_file("jsmn.h")

-- Which match of find, counted as mutate counts them (every substring
-- match, overlaps included), starts at offset at.
local function occurrence(find, at)
  local k, from = 0, 1
  while true do
    local s = text:find(find, from, true)
    if not s or s > at then return k end
    k, from = k + 1, s + 1
  end
end

local n, at, body = 0, 1, false
for line in text:gmatch("(.-)\n") do
  n = n + 1
  if line:find("^#ifndef JSMN_HEADER") then body = true end
  local code = line:match("^%s*(.)")
  if body and code and code ~= "#" and code ~= "*" and not line:find("^%s*/[*/]") then
    for k, o in ipairs(operators(line)) do
      local pos, op = o[1], o[2]
      mutant {
        name = string.format("jsmn-L%d-%d-%s", n, k, word[swap[op]]),
        file = "jsmn.h",
        find = line .. "\n",
        occurrence = occurrence(line .. "\n", at),
        replace = line:sub(1, pos - 1) .. swap[op] .. line:sub(pos + #op) .. "\n",
        guards = { "test_default", "test_strict", "test_links", "test_strict_links" },
        designed_against = "the tests notice a changed comparison or condition in the parser",
        why = string.format("jsmn.h:%d: %s becomes %s", n, op, swap[op]),
      }
    end
  end
  at = at + #line + 1
end
