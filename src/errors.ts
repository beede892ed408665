// What the user asked for or gave cannot be used: a missing folder, not a
// repository, an invalid config file or models.json, an unknown profile. Every
// command prints such an error as one line and exits 2 (commands/base.ts); the
// modules that find them throw a subclass, whatever their layer.
export class UsageError extends Error {}
