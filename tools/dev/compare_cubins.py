#!/usr/bin/env python3
"""Whether two template trees compile to the same machine code, kernel by kernel, without a GPU.

Prewarms the manifests' kernels from each tree (JITFP8_TEMPLATE_DIR) with the debug dump on, in
two processes side by side, then pairs the dumped kernels by name and compares their cubins'
code sections 16 bytes (one sm_90 instruction) at a time. A change meant to leave the code as it
is (a comment, a refactor, a C++ rule) is proven so where every kernel's code is identical, and
only kernels listed as differing need timing on a GPU. Cubins are reproducible (the same source
and options give the same bytes), so a difference is the change's.

Usage: tools/dev/compare_cubins.py [--jitfp8 build/tools/jitfp8] [--arch sm_90a] TREE_A TREE_B MANIFEST...
  TREE_A, TREE_B: template folders (as templates/: common/, sm90/, ...), e.g. one from
  `git archive HEAD templates | tar -x -C /tmp/old --strip-components=1`.
Exit status: 0 all identical, 1 some differ, 2 a run failed or the two runs built different sets.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile


def elf_sections(path):
    """{name: bytes} of a 64-bit little-endian ELF file's sections."""
    data = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    headers = [struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    sections = {}
    for name, _type, _flags, _addr, offset, size in headers:
        start = names_at + name
        sections[data[start:data.index(b'\0', start)].decode()] = data[offset:offset + size]
    return sections


def dumped_kernels(folder):
    """{kernel name: cubin path} of a JITFP8_DUMP folder."""
    kernels = {}
    for entry in sorted(os.listdir(folder)):
        config = os.path.join(folder, entry, 'config.json')
        if os.path.exists(config):
            kernels[json.load(open(config))['kernel']] = os.path.join(folder, entry, 'kernel.cubin')
    return kernels


def code_difference(cubin_a, cubin_b):
    """None if the code and its attributes (.nv.info: registers, barriers, stack...) are identical,
    else a line saying how they differ."""
    sections_a, sections_b = elf_sections(cubin_a), elf_sections(cubin_b)
    a = {n: s for n, s in sections_a.items() if n.startswith('.text')}
    b = {n: s for n, s in sections_b.items() if n.startswith('.text')}
    if a == b:
        info_a = {n: s for n, s in sections_a.items() if n.startswith('.nv.info')}
        info_b = {n: s for n, s in sections_b.items() if n.startswith('.nv.info')}
        return None if info_a == info_b else 'identical code, attributes (.nv.info) differ'
    parts = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name, b''), b.get(name, b'')
        if x == y:
            continue
        differing = [i // 16 for i in range(0, min(len(x), len(y)), 16) if x[i:i + 16] != y[i:i + 16]]
        where = f', first at {differing[0]}, last at {differing[-1]}' if differing else ''
        parts.append(f'{len(x) // 16} -> {len(y) // 16} instructions, {len(differing)} positions differ{where}')
    return '; '.join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--jitfp8', default='build/tools/jitfp8')
    parser.add_argument('--arch', default='sm_90a')
    parser.add_argument('tree_a')
    parser.add_argument('tree_b')
    parser.add_argument('manifests', nargs='+')
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix='compare_cubins.')
    runs = []
    for side, tree in (('a', args.tree_a), ('b', args.tree_b)):
        env = dict(os.environ, JITFP8_TEMPLATE_DIR=os.path.abspath(tree),
                   JITFP8_DUMP=os.path.join(work, 'dump-' + side), JITFP8_CACHE_DIR=os.path.join(work, 'cache-' + side))
        log = open(os.path.join(work, side + '.log'), 'w')
        runs.append(subprocess.Popen([args.jitfp8, 'prewarm', '--arch', args.arch, '--jobs', '1', '--quiet'] +
                                     args.manifests, env=env, stdout=log, stderr=subprocess.STDOUT))
    if any(run.wait() != 0 for run in runs):
        print(f'a prewarm failed: see {work}/a.log and b.log')
        return 2
    a, b = dumped_kernels(os.path.join(work, 'dump-a')), dumped_kernels(os.path.join(work, 'dump-b'))
    if set(a) != set(b):
        print(f'the trees build different kernels: {len(set(a) - set(b))} only from A, {len(set(b) - set(a))} only from B')
        return 2
    differing = {k: d for k in sorted(a) if (d := code_difference(a[k], b[k])) is not None}
    print(f'{len(a)} kernels: {len(a) - len(differing)} with identical code, {len(differing)} differ (dumps in {work})')
    for kernel, how in differing.items():
        print(f'  {kernel}: {how}')
    return 1 if differing else 0


if __name__ == '__main__':
    sys.exit(main())
