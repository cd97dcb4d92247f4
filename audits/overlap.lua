-- audits/overlap.lua: training and evaluation share no example
-- (docs/audit.md).
--
-- Runs the trainer, then tdaudit overlap's engine (audit.overlap) on the
-- manifests it wrote (trainer.manifests: JSON lines, the record's text in
-- the field manifests.field, default "text", its id in "id"): an
-- evaluation record with a training record's id, the same normalised text,
-- or most of its word 13-grams in the training set is the finding, and so
-- is an evaluation set that is a prefix or a sub-range of the training
-- one. A trainer that writes no manifests gets a skip with the reason.
local T = audit.trainer()
if not T or not T.manifests then
  audit.result{ status = "skip", summary = "the trainer writes no manifests",
    reason = "the trainer block gives no manifests = { train, eval }: there is nothing to "
      .. "compare the evaluation set with" }
  return
end
local r = audit.run("train", { vars = { dir = "run" } })
if r.status ~= 0 then error("train failed (" .. r.status .. "): " .. r.stderr) end
local o, err = audit.overlap(T.manifests.train, T.manifests.eval, { dir = "run" },
  { field = T.manifests.field or "text", id = "id" })
if not o then
  audit.result{ status = "skip", summary = "the run's manifests cannot be compared",
    reason = err }
  return
end
local ev = { ("%d training records, %d evaluation records; %s"):format(o.train_records,
  o.eval_records, o.relation) }
if o.passing > 0 then
  local f = o.first
  audit.result{ status = "fail", class = "SILENT", evidence = ev,
    summary = ("evaluation overlaps training: %d of %d evaluation records"):format(o.passing,
      o.eval_records),
    reason = ("%d evaluation records overlap the training set (first: line %d, by %s, "
      .. "training line %d); %s: the evaluation measures what was trained on")
      :format(o.passing, f.line, f.detectors, f.train_line, o.relation) }
  return
end
audit.result{ status = "pass", evidence = ev,
  summary = ("%d evaluation records, none overlaps the %d training ones")
    :format(o.eval_records, o.train_records) }
