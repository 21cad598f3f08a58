// The worker's side of dying with its parent: the kernel sends SIGTERM when the parent ends
// (PR_SET_PDEATHSIG), and parentGone() tells whether it has ended meanwhile. A worker started by
// the scheduler already has SIGKILL on its parent's death from WorkerProcess (set before exec,
// with the check for a parent that died first); this covers the other ways a worker starts: by
// hand, or from a Slurm job script (parent: the job's shell, or srun's step daemon).
#pragma once

namespace deepladder {

// Asks for SIGTERM when the parent ends and remembers the parent. Call once, early in main.
void watchParent();

// True when the parent seen by watchParent is gone (this process was re-parented).
bool parentGone();

}  // namespace deepladder
