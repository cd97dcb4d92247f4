-- audits/absent.lua: absent cells cannot reach any output (docs/audit.md).
--
-- For the tdaudit core only: trainer.absent runs the core's conformance
-- check that perturbs absent cells and requires the outputs bitwise
-- unchanged. A trainer without such a check (any other trainer) gets a
-- visible skip, never a pass.
local T = audit.trainer()
if not T or not T.absent then
  audit.result{ status = "skip", summary = "applies to the tdaudit core only",
    reason = "the trainer block names no absent-cell conformance check (trainer.absent); "
      .. "this audit is for lattices with absent cells, which this trainer does not have" }
  return
end
local r = audit.run("absent", {})
if r.status ~= 0 then
  audit.result{ status = "fail", class = "SILENT",
    summary = "a perturbed absent cell changed an output",
    reason = ("the conformance check exited %d: absent cells reach the outputs"):format(r.status),
    evidence = { (r.stdout .. r.stderr):sub(-400) } }
  return
end
audit.result{ status = "pass", summary = "absent cells perturbed, outputs bitwise unchanged "
  .. "(conformance check)" }
