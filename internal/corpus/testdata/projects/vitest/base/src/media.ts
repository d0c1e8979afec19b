// A stand-in for a browser's media devices, with the kind of error object
// a test likes to print.
export class OverconstrainedError extends Error {
  constructor(public constraint: string) {
    super(`constraint not satisfiable: ${constraint}`);
    this.name = 'OverconstrainedError';
  }
}

export interface Device {
  kind: 'videoinput' | 'audioinput';
  label: string;
}

export function pickCamera(devices: Device[], wanted: string): Device {
  const cam = devices.find((d) => d.kind === 'videoinput' && d.label.includes(wanted));
  if (!cam) {
    throw new OverconstrainedError(`label=${wanted}`);
  }
  return cam;
}
