-- audits/config.lua: every config key is live or refused (docs/audit.md).
--
-- Each key of trainer.keys is set to its perturbed value for one run. A
-- key must change the run (its hash, the evaluation of its final
-- checkpoint, or its logged final evaluation) or be refused by the
-- trainer (a non-zero exit: LOUD). A key accepted and ignored is the
-- finding (SILENT). Keys in trainer.inert are documented as not affecting
-- results: they must be accepted and leave the hash as it was.
local T = audit.trainer()
if not T or not T.keys or not next(T.keys) then
  audit.result{ status = "skip", summary = "no config keys to perturb",
    reason = "the trainer block gives no keys = { key = perturbed value }" }
  return
end
local inert = {}
for _, k in ipairs(T.inert or {}) do
  if not T.keys[k] then error("trainer.inert names " .. k .. ", which trainer.keys lacks") end
  inert[k] = true
end

-- a stable text of a value (tables with sorted keys)
local function text(v)
  if type(v) ~= "table" then return tostring(v) end
  local ks, parts = {}, {}
  for k in pairs(v) do ks[#ks + 1] = tostring(k) end
  table.sort(ks)
  for _, k in ipairs(ks) do parts[#parts + 1] = k .. "=" .. text(v[k] == nil and v[tonumber(k)] or v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- one run with set: exit status, hash, and what else says what it computed
local n = 0
local function run(set)
  n = n + 1
  local dir = "k" .. n
  local r = audit.run("train", { vars = { dir = dir }, set = set })
  if r.status ~= 0 then return { status = r.status, err = r.stderr } end
  local out = { status = 0, hash = r.hash or "?", rest = "" }
  if T.eval then
    local e = audit.run("eval", { vars = { dir = dir } })
    local m = T.eval_line and { e.stdout:match(T.eval_line.pattern) } or { e.stdout }
    out.rest = out.rest .. "eval:" .. table.concat(m, " ")
  end
  if T.log and T.final_eval then
    for _, rec in ipairs(audit.jsonl(T.log, { dir = dir }) or {}) do
      local match = true
      for k, v in pairs(T.final_eval) do if tostring(rec[k]) ~= v then match = false end end
      if match then out.rest = out.rest .. " final:" .. text(rec) end
    end
  end
  return out
end

local base, again = run({}), run({})
if base.status ~= 0 then error("the base config fails (" .. base.status .. "): " .. base.err) end
local ev = { "base: hash " .. base.hash }
if base.hash ~= again.hash or base.rest ~= again.rest then
  audit.result{ status = "skip", evidence = ev,
    summary = "the run is not reproducible, so no key's effect can be judged",
    reason = ("two runs of the same config differ (hash %s vs %s): see the seed audit")
      :format(base.hash, again.hash) }
  return
end
local keys = {}
for k in pairs(T.keys) do keys[#keys + 1] = k end
table.sort(keys)
local live, refused, ignored, moved = 0, 0, {}, {}
for _, k in ipairs(keys) do
  local r = run({ [k] = T.keys[k] })
  local what
  if r.status ~= 0 then
    what = "refused (exit " .. r.status .. ")"
    if inert[k] then moved[#moved + 1] = k .. " (refused)" else refused = refused + 1 end
  elseif inert[k] then
    what = r.hash == base.hash and "inert, hash unchanged" or "hash " .. r.hash
    if r.hash ~= base.hash then moved[#moved + 1] = k end
  elseif r.hash ~= base.hash or r.rest ~= base.rest then
    what = "changed the run"
    live = live + 1
  else
    what = "accepted, changed nothing"
    ignored[#ignored + 1] = k
  end
  ev[#ev + 1] = ("%s=%s: %s"):format(k, T.keys[k], what)
end
if #ignored > 0 then
  audit.result{ status = "fail", class = "SILENT", evidence = ev,
    summary = "config key accepted and ignored: " .. table.concat(ignored, ", "),
    reason = ("%s accepted a new value and changed neither the hash nor the evaluation: a "
      .. "config key that reaches no code"):format(table.concat(ignored, ", ")) }
elseif #moved > 0 then
  audit.result{ status = "fail", class = "SILENT", evidence = ev,
    summary = "a key documented as not affecting results does: " .. table.concat(moved, ", "),
    reason = table.concat(moved, ", ") .. " changed the hash or was refused, though trainer.inert "
      .. "says it does not affect results" }
else
  audit.result{ status = "pass", class = refused > 0 and "LOUD" or "-", evidence = ev,
    summary = ("%d keys change the run, %d refused, %d inert keys change nothing")
      :format(live, refused, #(T.inert or {})) }
end
