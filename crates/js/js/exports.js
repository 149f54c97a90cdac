// The public names of the package (both entries export these).
export {
  Guid,
  Luid,
  V3Guid,
  V3Luid,
  Xuid,
  Sno,
  Clock,
  V3Clock,
  SnoGenerator,
  FlakeLayout,
  FlakeClock,
  KguidError,
  driftOf,
  nodeFromName,
  v3,
  flake,
} from './api.js';
