-- ci/generated.lua: operator mutants generated over every C file of the
-- core, the harness and the ledger, for the weekly job
-- (.github/workflows/tdaudit-weekly.yml):
--
--   tdaudit mutate --catalogue ci/generated.lua --schemata --shard K/N
--
-- Kept out of tdaudit.lua's catalogues { }: there are about 20,000 of them,
-- far more than make audit has time for. A survivor that no test can
-- notice is declared here with its reason (docs/catalogues.md).

generate { files = { "core/*.c", "harness/*.c", "ledger/*.c" } }
