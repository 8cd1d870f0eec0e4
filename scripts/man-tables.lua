-- SPDX-License-Identifier: GPL-2.0
-- pandoc filter of scripts/man-page: a table of the manual becomes, in
-- the man page, a list of its rows, each row's first cell the item and
-- each other cell a line "COLUMN: TEXT" under it. A terminal of 80
-- columns cannot hold the manual's tables: tbl broke their identifiers
-- with hyphens and warned about each cell (lintian's groff-message).

local function inlines(blocks)
  return pandoc.utils.blocks_to_inlines(blocks, { pandoc.Space() })
end

function Table(tbl)
  local t = pandoc.utils.to_simple_table(tbl)
  local items = {}
  for _, row in ipairs(t.rows) do
    local defs = {}
    for j = 2, #row do
      if #row[j] > 0 then
        local line = pandoc.List({})
        local head = t.headers[j] and inlines(t.headers[j]) or pandoc.List({})
        if #head > 0 then
          line:extend(head)
          line:extend({ pandoc.Str(":"), pandoc.Space() })
        end
        line:extend(inlines(row[j]))
        table.insert(defs, { pandoc.Plain(line) })
      end
    end
    table.insert(items, { inlines(row[1]), defs })
  end
  local out = pandoc.List({})
  if #t.caption > 0 then
    out:insert(pandoc.Para(t.caption))
  end
  out:insert(pandoc.DefinitionList(items))
  return out
end
