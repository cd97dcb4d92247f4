-- audits/resume.lua: a resumed run equals the uninterrupted one, bit for bit
-- in what the trainer block says is hashed (docs/audit.md).
--
-- N steps in one run; N/2 steps, stopped with a checkpoint, then resumed
-- from it in another directory for the rest. The two hashes must agree: a
-- state the checkpoint drops (an optimizer buffer, a data position) shows
-- as a difference.
local T = audit.trainer()
if not T or not T.stop or not T.resume then
  audit.result{ status = "skip", summary = "no stop/resume commands",
    reason = "the trainer block gives no stop or resume template" }
  return
end
local half = math.floor(T.steps / 2)
local function run(cmd, vars)
  local r = audit.run(cmd, { vars = vars })
  if r.status ~= 0 then
    error(cmd .. " failed (" .. r.status .. "): " .. r.stderr)
  end
  return r
end
local full, again = run("train", { dir = "full" }), run("train", { dir = "again" })
if full.hash ~= again.hash then
  audit.result{ status = "skip", summary = "the run is not reproducible, so a resume cannot be judged",
    reason = ("two uninterrupted runs of the same config differ (%s vs %s): see the seed audit")
      :format(tostring(full.hash), tostring(again.hash)) }
  return
end
run("stop", { dir = "half", steps = half })
local resumed = run("resume", { dir = "resumed", from = "half" })
local ev = { ("%d steps: %s; %d + %d resumed: %s"):format(T.steps, tostring(full.hash), half,
  T.steps - half, tostring(resumed.hash)) }
if not full.hash or not resumed.hash then
  error("no hash found in what the trainer block says to hash")
end
if full.hash ~= resumed.hash then
  audit.result{ status = "fail", class = "SILENT", evidence = ev,
    summary = "a resumed run differs from the uninterrupted one",
    reason = ("after %d steps stopped at %d and resumed, the hash is %s, not the uninterrupted "
      .. "run's %s: the checkpoint drops state (a buffer, a position)")
      :format(T.steps, half, resumed.hash, full.hash) }
  return
end
audit.result{ status = "pass", evidence = ev,
  summary = ("%d steps = %d + %d resumed, bit for bit (%s)"):format(T.steps, half, T.steps - half,
    full.hash) }
