// A package version as the insights API names it, and the error of a package list that
// cannot be read (it names the file, and the line where there is one).

export type System = 'GO' | 'NPM' | 'CARGO' | 'MAVEN' | 'PYPI' | 'NUGET';

export interface VersionKey {
  system: System;
  name: string;
  version: string;
}

export class PackageListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PackageListError';
  }
}
