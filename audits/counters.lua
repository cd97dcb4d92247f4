-- audits/counters.lua: a counter carries its reason, everywhere
-- (docs/audit.md).
--
-- Every counter in the run's JSON log must carry a reason; where the log
-- gives per-reason counts they must sum to the counter's total; and every
-- reason must reach the text output (stdout) as well as the JSON log. The
-- run is the trainer's config with trainer.provoke set (what makes the
-- trainer count something); a run that counts nothing is a skip, not a
-- pass.
local T = audit.trainer()
if not T or not T.counters or not T.log then
  audit.result{ status = "skip", summary = "no counters field or log",
    reason = "the trainer block gives no counters = { field } or no log" }
  return
end
local r = audit.run("train", { vars = { dir = "run" }, set = T.provoke })
if r.status ~= 0 then error("train failed (" .. r.status .. "): " .. r.stderr) end
local log = audit.jsonl(T.log, { dir = "run" })
if not log then error("the run wrote no log at " .. T.log) end

local function fail(summary, reason, ev)
  audit.result{ status = "fail", class = "SILENT", summary = summary, reason = reason, evidence = ev }
end
local seen, reasons, ev, n = {}, {}, {}, 0
for line, rec in ipairs(log) do
  local cs = rec[T.counters.field]
  if type(cs) == "table" then
    local names = {}
    for name in pairs(cs) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      local c = cs[name]
      n = n + 1
      if not seen[name] then seen[name] = true; ev[#ev + 1] = ("%s:%d: %s"):format(T.log, line, name) end
      local total = type(c) == "table" and c.count or c
      local why = type(c) == "table" and (c.reasons or c.why) or nil
      if type(why) ~= "table" or next(why) == nil then
        return fail("counter " .. name .. " has no reason in the JSON log",
          ("%s line %d: counter %s = %s carries no reason: a reader learns that something was "
            .. "counted, never why"):format(T.log, line, name, tostring(total)), ev)
      end
      if c.reasons then
        local sum = 0
        for reason, k in pairs(c.reasons) do sum = sum + k; reasons[reason] = name end
        if sum ~= total then
          return fail("counter " .. name .. ": per-reason counts do not sum to the total",
            ("%s line %d: the reasons of %s sum to %d, its total is %d")
              :format(T.log, line, name, sum, total), ev)
        end
      else
        for _, reason in ipairs(why) do reasons[reason] = name end
      end
    end
  end
end
if n == 0 then
  audit.result{ status = "skip", summary = "the run counted nothing",
    reason = "no line of the log has a counter; give trainer.provoke a setting that makes the "
      .. "trainer count something" }
  return
end
local list = {}
for reason in pairs(reasons) do list[#list + 1] = reason end
table.sort(list)
for _, reason in ipairs(list) do
  if not r.stdout:find(reason, 1, true) then
    return fail("counter " .. reasons[reason] .. "'s reason is not in the text output",
      ("the reason \"%s\" of %s is in the JSON log but not on stdout"):format(reason, reasons[reason]), ev)
  end
  ev[#ev + 1] = ("reason \"%s\" (%s): in the JSON log and on stdout"):format(reason, reasons[reason])
end
audit.result{ status = "pass", class = "COUNTED", evidence = ev,
  summary = ("%d counter entries, %d reasons, each in the JSON log and the text output")
    :format(n, #list) }
