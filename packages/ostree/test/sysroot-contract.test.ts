import { planContract, sysrootNodeBackend } from './contract-suite.js';

// The same plan contract as the simulated hosts, on a real Debian ostree sysroot (slower: every change is a real
// commit + deploy), limited to the scenarios that together cover every step kind.
planContract(sysrootNodeBackend, ['kargs only', 'everything']);
