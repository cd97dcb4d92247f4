-- audits/eval.lua: an evaluation is a function of the weights alone
-- (docs/audit.md).
--
-- Two evaluations of the same checkpoint must score the same examples
-- (count and content hash, where the trainer reports them) and give the
-- same figures; the run's final evaluation must be in its machine log, and
-- agree with an evaluation of the final checkpoint (an eval that does not
-- rewind its stream scores other examples after the in-loop evaluations).
local T = audit.trainer()
if not T or not T.eval or not T.eval_line or not T.log or not T.final_eval then
  audit.result{ status = "skip", summary = "no eval command, eval_line, log or final_eval",
    reason = "the trainer block lacks eval, eval_line, log or final_eval" }
  return
end
local names = {}
for n in T.eval_line.names:gmatch("%S+") do names[#names + 1] = n end

local function figures(r)
  local got = { r.stdout:match(T.eval_line.pattern) }
  if r.status ~= 0 or #got ~= #names then
    error("eval printed no line matching eval_line.pattern (exit " .. r.status .. "): "
      .. r.stdout .. r.stderr)
  end
  local f = {}
  for i, n in ipairs(names) do f[n] = got[i] end
  return f
end
local function show(f)
  local parts = {}
  for _, n in ipairs(names) do parts[#parts + 1] = n .. "=" .. tostring(f[n]) end
  return table.concat(parts, " ")
end
-- a figure as printed and as logged agree to the printed precision
local function agree(printed, logged)
  if type(logged) ~= "number" then return tostring(logged) == printed end
  local v = tonumber(printed)
  if not v then return false end
  local decimals = printed:match("%.(%d+)$")
  local tol = decimals and 0.5 * 10 ^ -#decimals or 0.5
  return math.abs(v - logged) <= tol * 1.000001 + 1e-12 * math.abs(v)
end

local r = audit.run("train", { vars = { dir = "run" } })
if r.status ~= 0 then error("train failed (" .. r.status .. "): " .. r.stderr) end
local e1 = figures(audit.run("eval", { vars = { dir = "run" } }))
local e2 = figures(audit.run("eval", { vars = { dir = "run" } }))
local ev = { "eval 1: " .. show(e1), "eval 2: " .. show(e2) }
for _, n in ipairs(names) do
  if e1[n] ~= e2[n] then
    audit.result{ status = "fail", class = "SILENT", evidence = ev,
      summary = "two evaluations of one checkpoint differ (" .. n .. ")",
      reason = ("the same checkpoint scored %s=%s, then %s=%s: the evaluation does not rewind "
        .. "its stream, so it measures its position, not the weights"):format(n, e1[n], n, e2[n]) }
    return
  end
end

local log = audit.jsonl(T.log, { dir = "run" })
if not log then error("the run wrote no log at " .. T.log) end
local final
for _, rec in ipairs(log) do
  local match = true
  for k, v in pairs(T.final_eval) do
    if tostring(rec[k]) ~= v then match = false end
  end
  if match then final = rec end
end
if not final then
  audit.result{ status = "fail", class = "SILENT", evidence = ev,
    summary = "the final evaluation is missing from the machine log",
    reason = ("no line of %s matches final_eval (%d lines read): the last evaluation reached "
      .. "the text output only"):format(T.log, #log) }
  return
end
local logged = {}
for _, n in ipairs(names) do
  if final[n] ~= nil then
    logged[#logged + 1] = n .. "=" .. tostring(final[n])
    if not agree(e1[n], final[n]) then
      ev[#ev + 1] = "final eval in the log: " .. table.concat(logged, " ")
      audit.result{ status = "fail", class = "SILENT", evidence = ev,
        summary = "the logged final evaluation is not what the final checkpoint scores",
        reason = ("the log's final evaluation has %s=%s, an evaluation of the final checkpoint "
          .. "%s: the in-run evaluation scored other examples (no rewind)")
          :format(n, tostring(final[n]), e1[n]) }
      return
    end
  end
end
ev[#ev + 1] = "final eval in the log: " .. table.concat(logged, " ")
audit.result{ status = "pass", evidence = ev,
  summary = "two evaluations agree (" .. show(e1) .. ") and match the logged final one" }
