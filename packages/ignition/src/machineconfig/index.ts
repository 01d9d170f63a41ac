/** MachineConfig rendering: filled by issue 3 (MachineConfig half). */
export const machineConfigPlaceholder = true;
