// The package lists of a project, read by file name into version keys: npm locks, go.sum,
// Cargo.lock, poetry.lock, requirements.txt, Maven dependency lists and purl lists.

import { describe, expect, it } from 'vitest';
import { PackageListError, readPackageList, type VersionKey } from '../../../../src/integrations/package-insights/packages/index.js';

const npm = (name: string, version: string): VersionKey => ({ system: 'NPM', name, version });
const go = (name: string, version: string): VersionKey => ({ system: 'GO', name, version });
const cargo = (name: string, version: string): VersionKey => ({ system: 'CARGO', name, version });
const pypi = (name: string, version: string): VersionKey => ({ system: 'PYPI', name, version });
const maven = (name: string, version: string): VersionKey => ({ system: 'MAVEN', name, version });

/** The error `fn` throws, checked to be a PackageListError. */
function errorOf(fn: () => unknown): PackageListError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(PackageListError);
    return e as PackageListError;
  }
  throw new Error('expected a PackageListError');
}

describe('package-lock.json', () => {
  const v3 = JSON.stringify(
    {
      name: 'my-app',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'my-app', version: '1.0.0', license: 'MIT', workspaces: ['packages/*'], dependencies: { a: '^1.0.0', '@types/node': '^20.1.0' } },
        'node_modules/@types/node': {
          version: '20.1.0',
          resolved: 'https://registry.npmjs.org/@types/node/-/node-20.1.0.tgz',
          integrity: 'sha512-O+z53uwx64xY7D6roOi4+jApDGFg0qn6WHcxe5QeqjMaTezBO/mxdfFXIVAVVyNWKx84OmPB3L8kbVYOTeN34A==',
          dev: true,
        },
        'node_modules/a': { version: '1.2.3', resolved: 'https://registry.npmjs.org/a/-/a-1.2.3.tgz', integrity: 'sha512-aaa', dependencies: { b: '^2.0.0' } },
        'node_modules/a/node_modules/b': { version: '2.0.1', resolved: 'https://registry.npmjs.org/b/-/b-2.0.1.tgz', integrity: 'sha512-bbb' },
        'node_modules/b': { version: '1.0.0', resolved: 'https://registry.npmjs.org/b/-/b-1.0.0.tgz', integrity: 'sha512-ccc' },
        'node_modules/string-width-cjs': { name: 'string-width', version: '4.2.3', resolved: 'https://registry.npmjs.org/string-width/-/string-width-4.2.3.tgz' },
        'node_modules/my-lib': { resolved: 'packages/my-lib', link: true },
        'node_modules/from-git': { version: 'git+ssh://git@github.com/acme/from-git.git#0123456789abcdef', resolved: 'git+ssh://git@github.com/acme/from-git.git#0123456789abcdef' },
        'packages/my-lib': { name: 'my-lib', version: '0.1.0', dependencies: { c: '^3.0.0' } },
        'packages/my-lib/node_modules/c': { version: '3.1.4', resolved: 'https://registry.npmjs.org/c/-/c-3.1.4.tgz' },
      },
    },
    null,
    2,
  );

  it('v3: lists every package under node_modules, by the name it was installed as', () => {
    expect(readPackageList('package-lock.json', v3)).toEqual([
      npm('@types/node', '20.1.0'),
      npm('a', '1.2.3'),
      npm('b', '2.0.1'),
      npm('b', '1.0.0'),
      npm('string-width', '4.2.3'),
      npm('c', '3.1.4'),
    ]);
  });

  it('npm-shrinkwrap.json is read the same way', () => {
    expect(readPackageList('/srv/app/npm-shrinkwrap.json', v3)).toEqual(readPackageList('package-lock.json', v3));
  });

  it('v1: walks the nested dependencies, skipping file: and git versions', () => {
    const v1 = JSON.stringify({
      name: 'legacy',
      version: '0.0.1',
      lockfileVersion: 1,
      requires: true,
      dependencies: {
        debug: {
          version: '2.6.9',
          resolved: 'https://registry.npmjs.org/debug/-/debug-2.6.9.tgz',
          integrity: 'sha512-debug',
          requires: { ms: '2.0.0' },
          dependencies: { ms: { version: '2.0.0', resolved: 'https://registry.npmjs.org/ms/-/ms-2.0.0.tgz', integrity: 'sha1-ms' } },
        },
        'local-thing': { version: 'file:../local-thing' },
        'from-github': { version: 'github:acme/from-github#abc1234', from: 'github:acme/from-github' },
        ms: { version: '2.1.3', resolved: 'https://registry.npmjs.org/ms/-/ms-2.1.3.tgz', integrity: 'sha512-ms', dev: true },
      },
    });
    expect(readPackageList('package-lock.json', v1)).toEqual([npm('debug', '2.6.9'), npm('ms', '2.0.0'), npm('ms', '2.1.3')]);
  });

  it('v2 (packages and dependencies): reads packages only', () => {
    const v2 = JSON.stringify({
      lockfileVersion: 2,
      packages: { '': { name: 'x' }, 'node_modules/left-pad': { version: '1.3.0' } },
      dependencies: { 'left-pad': { version: '1.3.0' }, ignored: { version: '9.9.9' } },
    });
    expect(readPackageList('package-lock.json', v2)).toEqual([npm('left-pad', '1.3.0')]);
  });

  it('an empty v3 lock lists nothing', () => {
    expect(readPackageList('package-lock.json', '{"name":"x","lockfileVersion":3,"packages":{"":{"name":"x"}}}')).toEqual([]);
  });

  it('invalid JSON is an error naming the file', () => {
    const e = errorOf(() => readPackageList('/srv/app/package-lock.json', '{"lockfileVersion": 3, "packages": {'));
    expect(e.message).toMatch(/^\/srv\/app\/package-lock\.json: not JSON/);
  });

  it('JSON that is no lock is an error naming the file', () => {
    expect(errorOf(() => readPackageList('package-lock.json', '[1, 2]')).message).toMatch(/^package-lock\.json: not a package lock/);
    expect(errorOf(() => readPackageList('package-lock.json', '{"name": "x"}')).message).toMatch(/^package-lock\.json: not a package lock/);
  });
});

describe('go.sum', () => {
  const sum = `cloud.google.com/go v0.26.0/go.mod h1:aQUYkXzVsufM+DwF1aE+0xfcU+56JwCaLick0ClmMTw=
github.com/davecgh/go-spew v1.1.1 h1:vj9j/u1bqnvCEfJOwUhtlOARqs3+rkHYY13jYWTU97c=
github.com/davecgh/go-spew v1.1.1/go.mod h1:J7Y8YcW2NihsgmVo/mv3lAwl/skON4iLHjSsI+c5H38=
github.com/gorilla/mux v1.8.0 h1:i40aqfkR1h2SlN9hojwV5ZA91wcXFOvkdNIeFDP5koI=
github.com/gorilla/mux v1.8.0/go.mod h1:DVbg23sWSpFRCP0SfiEN6jmj59UnW/n46BH5rLB71So=
golang.org/x/sys v0.0.0-20220520151302-bc2c85ada10a/go.mod h1:oPkhp1MJrh7nUepCBck5+mAzfO9JrbApNNgaTdGDITg=
gopkg.in/yaml.v3 v3.0.1 h1:fxVm/GzAzEWqLHuvctI91KS9hhNmmWOoWu0XTYJS7CA=
gopkg.in/yaml.v3 v3.0.1/go.mod h1:K4uyk7z7BCEPqu6E+C64Yfv1cQ7kz7rIZviUmN+EgEM=
github.com/ugorji/go/codec v1.2.12+incompatible h1:ZZkGmmm4ZX+3GJzrrz5NXcwp4SxnWb0Mo4/hF7kLlUk=
`;

  it('lists the modules with an h1 hash, not those only consulted for their go.mod', () => {
    expect(readPackageList('go.sum', sum)).toEqual([
      go('github.com/davecgh/go-spew', 'v1.1.1'),
      go('github.com/gorilla/mux', 'v1.8.0'),
      go('gopkg.in/yaml.v3', 'v3.0.1'),
      go('github.com/ugorji/go/codec', 'v1.2.12+incompatible'),
    ]);
  });

  it('reads CRLF line ends', () => {
    expect(readPackageList('go.sum', sum.replace(/\n/g, '\r\n'))).toEqual(readPackageList('go.sum', sum));
  });

  it('a malformed line is an error naming file:line', () => {
    const bad = 'github.com/gorilla/mux v1.8.0 h1:i40aqfkR1h2SlN9hojwV5ZA91wcXFOvkdNIeFDP5koI=\n\ngithub.com/gorilla/mux v1.8.0\n';
    expect(errorOf(() => readPackageList('mod/go.sum', bad)).message).toMatch(/^mod\/go\.sum:3: not a go\.sum line/);
    const notH1 = 'github.com/gorilla/mux v1.8.0 sha256:abc\n';
    expect(errorOf(() => readPackageList('go.sum', notH1)).message).toMatch(/^go\.sum:1: /);
  });
});

describe('Cargo.lock', () => {
  it('version 3: lists the crates with a source, not the workspace crates', () => {
    const lock = `# This file is automatically @generated by Cargo.
# It is not intended for manual editing.
version = 3

[[package]]
name = "aho-corasick"
version = "1.1.2"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "b2969dcb958b36655471fc61f7e416fa76033bdd4bfed0678d8fee1e2d07a1f0"
dependencies = [
 "memchr",
]

[[package]]
name = "my-app"
version = "0.1.0"
dependencies = [
 "aho-corasick",
 "my-lib",
 "serde 1.0.188",
 "serde_json",
]

[[package]]
name = "my-lib"
version = "0.1.0"

[[package]]
name = "memchr"
version = "2.6.4"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "f665ee40bc4a3c5590afb1e9677db74a508659dfd71e126420da8274909a0167"

[[package]]
name = "serde"
version = "1.0.188"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "cf9e0fcba69a370eed61bcf2b728575f726b50b55cba78064753d708ddc7549e"
dependencies = ["serde_derive"]

[[package]]
name = "serde_json"
version = "1.0.107"
source = "git+https://github.com/serde-rs/json?branch=master#0123456789abcdef0123456789abcdef01234567"
dependencies = [
 "itoa",
 "ryu",
 "serde 1.0.188",
]
`;
    expect(readPackageList('Cargo.lock', lock)).toEqual([
      cargo('aho-corasick', '1.1.2'),
      cargo('memchr', '2.6.4'),
      cargo('serde', '1.0.188'),
      cargo('serde_json', '1.0.107'),
    ]);
  });

  it('version 1: the [metadata] table of checksums is ignored', () => {
    const lock = `[[package]]
name = "memchr"
version = "2.2.1"
source = "registry+https://github.com/rust-lang/crates.io-index"

[[package]]
name = "my-app"
version = "0.1.0"
dependencies = [
 "memchr 2.2.1 (registry+https://github.com/rust-lang/crates.io-index)",
]

[metadata]
"checksum memchr 2.2.1 (registry+https://github.com/rust-lang/crates.io-index)" = "88579771288728879b57485cc7d6b07d648c9f0141eb955f8ab7f9d45394468e"
`;
    expect(readPackageList('Cargo.lock', lock)).toEqual([cargo('memchr', '2.2.1')]);
  });

  it('a package without name or version is an error naming the file', () => {
    const lock = '[[package]]\nname = "x"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n';
    expect(errorOf(() => readPackageList('ws/Cargo.lock', lock)).message).toMatch(/^ws\/Cargo\.lock: a \[\[package\]\] without name or version/);
  });

  it('a line that is no TOML key/value is an error naming file:line', () => {
    const lock = 'version = 3\n\n[[package]]\nname = "x"\nthis is not toml\n';
    expect(errorOf(() => readPackageList('Cargo.lock', lock)).message).toMatch(/^Cargo\.lock:5: cannot read/);
  });
});

describe('poetry.lock', () => {
  const lock = `# This file is automatically @generated by Poetry 1.7.1 and should not be changed by hand.

[[package]]
name = "certifi"
version = "2023.7.22"
description = "Python package for providing Mozilla's CA Bundle."
optional = false
python-versions = ">=3.6"
files = [
    {file = "certifi-2023.7.22-py3-none-any.whl", hash = "sha256:92d6037539857d8206b8f6ae472e8b77db8058fec5937a1ef3f54304089edbb9"},
    {file = "certifi-2023.7.22.tar.gz", hash = "sha256:539cc1d13202e33ca466e88b2807e29f4c13049d6d87031a3c110744495cb082"},
]

[[package]]
name = "pandas"
version = "2.1.1"
description = "Powerful data structures for data analysis, time series, and statistics"
optional = false
python-versions = ">=3.9"
files = [
    {file = "pandas-2.1.1.tar.gz", hash = "sha256:fecb198dc389429be557cde50a2d46da8434a17fe37d7d41ff102e3987fd947b"},
]

[package.dependencies]
numpy = [
    {version = ">=1.22.4", markers = "python_version < \\"3.11\\""},
    {version = ">=1.23.2", markers = "python_version == \\"3.11\\""},
]
python-dateutil = ">=2.8.2"
tzdata = ">=2022.1"

[package.extras]
all = ["PyQt5 (>=5.15.6)", "SQLAlchemy (>=1.4.36)", "beautifulsoup4 (>=4.11.1)"]
aws = ["s3fs (>=2022.05.0)"]

[[package]]
name = "requests"
version = "2.31.0"
description = "Python HTTP for Humans."
optional = false
python-versions = ">=3.7"
files = [
    {file = "requests-2.31.0-py3-none-any.whl", hash = "sha256:58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f"},
]

[package.dependencies]
certifi = ">=2017.4.17"
urllib3 = {version = ">=1.21.1,<3", extras = ["socks"]}

[package.extras]
socks = ["PySocks (>=1.5.6,!=1.5.7)"]
use-chardet-on-py3 = ["chardet (>=3.0.2,<6)"]

[[package]]
name = "Typing_Extensions"
version = "4.8.0"
description = "Backported and Experimental Type Hints for Python 3.8+"
optional = false
python-versions = ">=3.8"
files = []

[[package]]
name = "zope.interface"
version = "6.1"
description = "Interfaces for Python"
optional = false
python-versions = ">=3.7"
files = []

[package.source]
type = "legacy"
url = "https://pypi.example.com/simple"
reference = "internal"

[metadata]
lock-version = "2.0"
python-versions = "^3.11"
content-hash = "7a5c4e3b2f1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b"
`;

  it('lists every package, names as the lock writes them (capitalization included, as the API takes them)', () => {
    expect(readPackageList('poetry.lock', lock)).toEqual([
      pypi('certifi', '2023.7.22'),
      pypi('pandas', '2.1.1'),
      pypi('requests', '2.31.0'),
      pypi('Typing_Extensions', '4.8.0'),
      pypi('zope.interface', '6.1'),
    ]);
  });

  it('an older lock with [metadata.files] is read too', () => {
    const old = `[[package]]
name = "backports.zoneinfo"
version = "0.2.1"
description = "Backport of the standard library zoneinfo module"
category = "main"
optional = false
python-versions = ">=3.6"

[metadata]
lock-version = "1.1"
python-versions = "^3.8"
content-hash = "abc"

[metadata.files]
"backports.zoneinfo" = [
    {file = "backports.zoneinfo-0.2.1.tar.gz", hash = "sha256:fadbfe37f74051d024037f223b8e001611eac868b5c5b06144ef4d8b799862f2"},
]
`;
    expect(readPackageList('poetry.lock', old)).toEqual([pypi('backports.zoneinfo', '0.2.1')]);
  });

  it('a package without version is an error naming the file', () => {
    expect(errorOf(() => readPackageList('poetry.lock', '[[package]]\nname = "x"\n')).message).toMatch(/^poetry\.lock: a \[\[package\]\] without name or version/);
  });
});

describe('requirements.txt', () => {
  const reqs = `# generated by pip-compile
--index-url https://pypi.org/simple
--extra-index-url https://pypi.example.com/simple
-r base.txt
-c constraints.txt

Django==4.2.7
requests[security]==2.31.0
tomli==2.0.1 ; python_version < "3.11"
Typing_Extensions==4.8.0  # via pydantic
urllib3==2.0.7 \\
    --hash=sha256:c97dfde1f7bd43a71c8d2a58e369e9b2bf692d1334ea9f9cae55add7d0dd0f84 \\
    --hash=sha256:fdb6d215c776278489906c2f8916e6e7d4f5a9b602ccbcfdf7f016fc8da0596e
    # via requests
zope.interface===6.1
   pyyaml == 6.0.1
`;

  it('reads pinned requirements with extras, markers, hashes and comments', () => {
    expect(readPackageList('requirements.txt', reqs)).toEqual([
      pypi('Django', '4.2.7'),
      pypi('requests', '2.31.0'),
      pypi('tomli', '2.0.1'),
      pypi('Typing_Extensions', '4.8.0'),
      pypi('urllib3', '2.0.7'),
      pypi('zope.interface', '6.1'),
      pypi('pyyaml', '6.0.1'),
    ]);
  });

  it('requirements-*.txt names select it too', () => {
    expect(readPackageList('requirements-dev.txt', 'pytest==7.4.3\n')).toEqual([pypi('pytest', '7.4.3')]);
  });

  it('an unpinned requirement is an error naming file:line', () => {
    const e = errorOf(() => readPackageList('api/requirements.txt', 'Django==4.2.7\n# web\nflask>=2\n'));
    expect(e.message).toMatch(/^api\/requirements\.txt:3: "flask>=2" is not pinned/);
  });

  it('the line named is where a continued requirement begins', () => {
    const e = errorOf(() => readPackageList('requirements.txt', 'a==1 \\\n  --hash=sha256:00\nb~=2.0 \\\n  --hash=sha256:11\n'));
    expect(e.message).toMatch(/^requirements\.txt:3: "b~=2\.0" is not pinned/);
  });
});

describe('Maven dependency lists', () => {
  const list = `[INFO]
[INFO] The following files have been resolved:
[INFO]    org.apache.commons:commons-lang3:jar:3.12.0:compile -- module org.apache.commons.lang3
[INFO]    com.google.guava:guava:jar:32.1.3-jre:compile -- module com.google.common [auto]
[INFO]    io.netty:netty-transport-native-epoll:jar:linux-x86_64:4.1.100.Final:runtime
[INFO]    com.fasterxml.jackson.core:jackson-databind:jar:2.15.3:compile (optional)
[INFO]    org.slf4j:slf4j-simple:jar:2.0.9:runtime (optional) -- module org.slf4j.simple
[INFO]    junit:junit:jar:4.13.2:test
[INFO]    org.springframework.boot:spring-boot-dependencies:pom:3.1.5:import
[INFO]    javax.inject:javax.inject:1
[INFO]
`;

  it('reads mvn dependency:list output: type, classifier, scope, (optional) and module suffix', () => {
    expect(readPackageList('maven-deps.txt', list)).toEqual([
      maven('org.apache.commons:commons-lang3', '3.12.0'),
      maven('com.google.guava:guava', '32.1.3-jre'),
      maven('io.netty:netty-transport-native-epoll', '4.1.100.Final'),
      maven('com.fasterxml.jackson.core:jackson-databind', '2.15.3'),
      maven('org.slf4j:slf4j-simple', '2.0.9'),
      maven('junit:junit', '4.13.2'),
      maven('org.springframework.boot:spring-boot-dependencies', '3.1.5'),
      maven('javax.inject:javax.inject', '1'),
    ]);
  });

  it('reads the list without [INFO] prefix, as -DoutputFile writes it, under *.mvn.txt and dependencies.txt', () => {
    const plain = list.replace(/^\[INFO\]/gm, '');
    expect(readPackageList('app.mvn.txt', plain)).toEqual(readPackageList('maven-deps.txt', list));
    expect(readPackageList('dependencies.txt', plain)).toEqual(readPackageList('maven-deps.txt', list));
  });

  it('a line that is no coordinate is an error naming file:line', () => {
    const e = errorOf(() => readPackageList('maven.txt', '[INFO] The following files have been resolved:\n[INFO]    junit:junit\n'));
    expect(e.message).toMatch(/^maven\.txt:2: "junit:junit" is not group:artifact/);
    expect(errorOf(() => readPackageList('maven.txt', 'a:b:c:d:e:f:1.0\n')).message).toMatch(/^maven\.txt:1: /);
    expect(errorOf(() => readPackageList('maven.txt', 'org.x:y::1.0\n')).message).toMatch(/^maven\.txt:1: /);
  });
});

describe('purl lists', () => {
  it('reads one purl a line, skipping blank lines and comments', () => {
    const text = `# production dependencies
pkg:npm/%40angular/core@16.0.0

  pkg:maven/org.apache.commons/commons-lang3@3.12.0
pkg:golang/github.com/gorilla/mux@v1.8.0
# pkg:pypi/ignored@1.0
pkg:pypi/django@4.2
`;
    expect(readPackageList('purls.txt', text)).toEqual([
      npm('@angular/core', '16.0.0'),
      maven('org.apache.commons:commons-lang3', '3.12.0'),
      go('github.com/gorilla/mux', 'v1.8.0'),
      pypi('django', '4.2'),
    ]);
    expect(readPackageList('deps/app.purls', text)).toEqual(readPackageList('purls.txt', text));
  });

  it('a purl with qualifiers is an error naming the line', () => {
    const text = 'pkg:npm/lodash@4.17.21\n# next one has qualifiers\npkg:maven/org.apache.commons/commons-lang3@3.12.0?type=jar\n';
    expect(errorOf(() => readPackageList('x.purls', text)).message).toMatch(/^x\.purls:3: ".*" has qualifiers/);
  });

  it('a purl without version or of an unknown type is an error naming the line', () => {
    expect(errorOf(() => readPackageList('purls.txt', 'pkg:npm/lodash\n')).message).toMatch(/^purls\.txt:1: .*has no version/);
    expect(errorOf(() => readPackageList('purls.txt', '\npkg:gem/rails@7.0.0\n')).message).toMatch(/^purls\.txt:2: .*purl type "gem"/);
  });
});

describe('readPackageList', () => {
  it('drops duplicates, keeping the first appearance', () => {
    const reqs = 'urllib3==2.0.7\nDjango==4.2.7\nurllib3==2.0.7\nDjango==4.2.7\nurllib3==1.26.18\n';
    expect(readPackageList('requirements.txt', reqs)).toEqual([pypi('urllib3', '2.0.7'), pypi('Django', '4.2.7'), pypi('urllib3', '1.26.18')]);
    const lock = JSON.stringify({
      lockfileVersion: 3,
      packages: { '': {}, 'node_modules/b': { version: '1.0.0' }, 'node_modules/a': { version: '1.0.0' }, 'node_modules/a/node_modules/b': { version: '1.0.0' } },
    });
    expect(readPackageList('package-lock.json', lock)).toEqual([npm('b', '1.0.0'), npm('a', '1.0.0')]);
  });

  it('chooses the format by base name only', () => {
    expect(() => readPackageList('go.sum/Cargo.lock', 'go.mod-like text')).toThrow(/Cargo\.lock:1: cannot read/);
    expect(errorOf(() => readPackageList('deps/package-lock.json.bak', '{}')).message).toMatch(/unknown package list/);
  });

  it.each(['Gemfile.lock', 'yarn.lock', 'pnpm-lock.yaml', 'go.mod', 'packages.lock.json'])('%s is an unknown format, and the error lists the supported ones', (name) => {
    const e = errorOf(() => readPackageList(`app/${name}`, ''));
    expect(e.message).toContain(`app/${name}: unknown package list`);
    for (const f of ['package-lock.json', 'npm-shrinkwrap.json', 'go.sum', 'Cargo.lock', 'requirements*.txt', 'poetry.lock', 'purls.txt', '*.purls', 'maven*.txt', '*.mvn.txt', 'dependencies.txt']) {
      expect(e.message).toContain(f);
    }
  });
});

describe('a whole mvn dependency:list build log', () => {
  it('reads only the resolved block and ignores the rest of the log', () => {
    const log = [
      '[INFO] Scanning for projects...',
      '[INFO] --- maven-dependency-plugin:3.6.1:list (default-cli) @ app ---',
      '[INFO] ',
      '[INFO] The following files have been resolved:',
      '[INFO]    org.slf4j:slf4j-api:jar:2.0.9:compile -- module org.slf4j',
      '[INFO]    junit:junit:jar:4.13.2:test',
      '[INFO] ',
      '[INFO] BUILD SUCCESS',
      '[INFO] Total time:  1.234 s',
      '[INFO] Finished at: 2026-11-25T10:00:00Z',
    ].join('\n');
    expect(readPackageList('maven.txt', log)).toEqual([
      { system: 'MAVEN', name: 'org.slf4j:slf4j-api', version: '2.0.9' },
      { system: 'MAVEN', name: 'junit:junit', version: '4.13.2' },
    ]);
  });
});
