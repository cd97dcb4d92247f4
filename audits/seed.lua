-- audits/seed.lua: the seed is a property of the run (docs/audit.md).
--
-- Two processes with the same config and seed must give identical initial
-- weights and identical weights after the run; another seed must give
-- other ones (if they agree, the seed fixes nothing: that is the finding);
-- where the trainer names a thread-count key, 1 and N threads must agree.
local T = audit.trainer()
if not T or not T.init or not T.seed then
  audit.result{ status = "skip", summary = "no initial-weights command or seed key",
    reason = "the trainer block gives no init template or no seed = { key, other }" }
  return
end

local ev = {}
local function hash(cmd, dir, set)
  local r = audit.run(cmd, { vars = { dir = dir }, set = set })
  if r.status ~= 0 or not r.hash then
    error(cmd .. " in " .. dir .. " failed (" .. r.status .. "): " .. r.stderr)
  end
  return r.hash
end
local other = { [T.seed.key] = T.seed.other }

local i1, i2, i3 = hash("init", "i1"), hash("init", "i2"), hash("init", "i3", other)
local t1, t2, t3 = hash("train", "t1"), hash("train", "t2"), hash("train", "t3", other)
ev[#ev + 1] = ("initial weights: %s, %s; %s=%s: %s"):format(i1, i2, T.seed.key, T.seed.other, i3)
ev[#ev + 1] = ("after the run: %s, %s; %s=%s: %s"):format(t1, t2, T.seed.key, T.seed.other, t3)

local function fail(reason, summary)
  audit.result{ status = "fail", class = "SILENT", summary = summary, reason = reason, evidence = ev }
end
if i1 ~= i2 then
  return fail("two processes with the same config and seed drew different initial weights: "
    .. "the initialisation is unseeded", "unseeded initial weights: " .. i1 .. " vs " .. i2)
end
if t1 ~= t2 then
  return fail("two runs with the same config and seed ended with different weights",
    "same seed, different runs: " .. t1 .. " vs " .. t2)
end
if i1 == i3 then
  return fail(("%s=%s gives the same initial weights: the seed fixes nothing in them")
    :format(T.seed.key, T.seed.other), "the seed does not reach the initial weights")
end
if t1 == t3 then
  return fail(("%s=%s gives the same final weights"):format(T.seed.key, T.seed.other),
    "the seed does not reach the run")
end
local threads = "no thread-count claim"
if T.threads then
  local tn = hash("train", "tn", { [T.threads.key] = T.threads.other })
  ev[#ev + 1] = ("%s=%s: %s"):format(T.threads.key, T.threads.other, tn)
  if tn ~= t1 then
    return fail(("%s=%s changes the weights (%s vs %s) though the trainer says results do not "
      .. "depend on the thread count"):format(T.threads.key, T.threads.other, tn, t1),
      "the thread count changes the run")
  end
  threads = "1 vs " .. T.threads.other .. " threads agree"
end
audit.result{ status = "pass", summary = "same seed, same weights (init and run); another seed "
  .. "differs; " .. threads, evidence = ev }
