/*
 * survivors.h - tdaudit mutate --survivors: run again only the mutants that
 * survived the previous run, read back from the project's ledger.
 *
 * "The previous run" is the latest finished unsharded mutation run of the
 * ledger (td_ledger_survivors): a shard holds only part of the mutants, so
 * its survivors are not the run's. A survivor that no mutant of the
 * catalogues has any more (its entry removed, or its generated id changed
 * with the code) is listed as gone, never dropped in silence.
 */
#ifndef TD_SURVIVORS_H
#define TD_SURVIVORS_H

#include "catalogue.h"
#include "project.h"

/*
 * Keeps in m only the survivors of the previous run of p's ledger, freeing
 * the rest, and prints on stdout the run it read (id, start, how many
 * survived) and each survivor gone from the catalogues. m->n 0 afterwards
 * means there is nothing to run again (none survived, or every survivor
 * is gone), which is printed too. TD_ESTATE when the ledger does not exist
 * or holds no finished unsharded mutation run.
 */
int td_survivors_keep(td_mutants *m, const td_project *p);

#endif
