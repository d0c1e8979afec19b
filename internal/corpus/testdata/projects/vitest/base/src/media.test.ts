import { describe, expect, it } from 'vitest';
import { OverconstrainedError, pickCamera } from './media';

const devices = [
  { kind: 'audioinput' as const, label: 'Built-in Microphone' },
  { kind: 'videoinput' as const, label: 'FaceTime HD Camera' },
];

describe('pickCamera', () => {
  it('finds the camera', () => {
    expect(pickCamera(devices, 'FaceTime').label).toBe('FaceTime HD Camera');
  });

  it('fails over without a match', () => {
    // What a passing test prints when it logs the globals it mocked: the
    // error class shows as [Function], which looks like a failure.
    console.log({ OverconstrainedError, NotAllowedError: undefined, mediaDevices: { getUserMedia: () => {} } });
    expect(() => pickCamera(devices, 'Logitech')).toThrow(OverconstrainedError);
  });
});
