-- audits/overlap.lua: training and evaluation share no example
-- (docs/audit.md).
--
-- Reads the manifests the trainer writes (trainer.manifests: JSON lines
-- with an "id" and a "text" or "hash" each) after a run, and requires that
-- no evaluation example has the id, or the normalised content (lower case,
-- blanks collapsed), of a training one. A small exact check; a trainer
-- that writes no manifests gets a skip with the reason.
local T = audit.trainer()
if not T or not T.manifests then
  audit.result{ status = "skip", summary = "the trainer writes no manifests",
    reason = "the trainer block gives no manifests = { train, eval }: there is nothing to "
      .. "compare the evaluation set with" }
  return
end
local r = audit.run("train", { vars = { dir = "run" } })
if r.status ~= 0 then error("train failed (" .. r.status .. "): " .. r.stderr) end
local tr = audit.jsonl(T.manifests.train, { dir = "run" })
local ev_set = audit.jsonl(T.manifests.eval, { dir = "run" })
if not tr or not ev_set then
  audit.result{ status = "skip", summary = "the run wrote no manifests",
    reason = ("%s or %s is missing after a run"):format(T.manifests.train, T.manifests.eval) }
  return
end
local function content(e)
  if e.hash then return "hash:" .. tostring(e.hash) end
  if e.text then return "text:" .. tostring(e.text):lower():gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "") end
  return nil
end
local ids, contents = {}, {}
for _, e in ipairs(tr) do
  if e.id ~= nil then ids[tostring(e.id)] = true end
  local c = content(e)
  if c then contents[c] = true end
end
local same_id, same_content, first = 0, 0, nil
for _, e in ipairs(ev_set) do
  local c = content(e)
  if e.id ~= nil and ids[tostring(e.id)] then same_id = same_id + 1; first = first or tostring(e.id) end
  if c and contents[c] then same_content = same_content + 1; first = first or tostring(e.id) end
end
local ev = { ("%d training examples, %d evaluation examples"):format(#tr, #ev_set) }
if same_id + same_content > 0 then
  audit.result{ status = "fail", class = "SILENT", evidence = ev,
    summary = ("evaluation overlaps training: %d shared ids, %d shared contents"):format(same_id, same_content),
    reason = ("%d evaluation examples share an id and %d a normalised content with the training "
      .. "set (first: %s): the evaluation measures what was trained on"):format(same_id, same_content, first) }
  return
end
audit.result{ status = "pass", evidence = ev,
  summary = ("%d evaluation examples, none shares an id or content with %d training ones")
    :format(#ev_set, #tr) }
