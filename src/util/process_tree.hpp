#pragma once
// Every process a child of ours starts, found and ended with it: an engine
// worker, an external benchmark tool, a co-tenant and the user's command in
// it. A process group is not enough: a grandchild that calls setsid() leaves
// it, and a double fork leaves the parent links too. So each child is started
// with a mark in its environment (MOESWEEP_TREE=<ours>), which everything it
// starts inherits across setsid and double forks (the way Jenkins' process
// tree killer finds a build's daemons); the parent links catch a descendant
// that cleared its environment while its parent lives. Why not the others: a
// cgroup needs a writable, delegated hierarchy (most containers, CI runners
// and machines without a systemd user session have none), and a pidfd sees
// one process, not its tree.
//
// The co-tenant's own process (`moesweep __cotenant`) is also a subreaper
// (adopt_orphans): whatever the user's command leaves behind becomes its
// child, so ending its tree misses nothing, also when moesweep itself is
// killed (it gets SIGTERM then, PR_SET_PDEATHSIG, and ends its tree).
#include <sys/types.h>

#include <string>
#include <vector>

namespace moesweep {

// The environment variable of the mark.
inline constexpr const char* kProcessTreeVariable = "MOESWEEP_TREE";

// A new mark, unique to this process and call: "<pid>-<n>-<random>".
std::string new_process_tree_mark();

// "MOESWEEP_TREE=<mark>", for a child's environment (replacing one inherited
// from an outer moesweep: the inner tree is its own).
std::string process_tree_entry(const std::string& mark);

// This process's environment with `mark` set: for execve's envp.
std::vector<std::string> environment_with_mark(const std::string& mark);

// Orphaned descendants become our children (PR_SET_CHILD_SUBREAPER), not
// init's: for a process whose only children are one tree.
void adopt_orphans();

// Ends every process of the tree: the descendants of each root (by parent
// links), each root itself, and every process whose environment carries
// `mark` ("" = none). They are stopped first (SIGSTOP, so none starts
// another), found again until no new one appears, then killed (SIGKILL).
// This process is never signalled. Descendants that became our children are
// reaped; a root is not (its parent waits for it, for its exit status).
// Returns how many processes it killed.
int end_process_tree(const std::vector<pid_t>& roots, const std::string& mark);

// The processes alive whose environment carries `mark` (tests, diagnostics).
std::vector<pid_t> processes_with_mark(const std::string& mark);

}  // namespace moesweep
