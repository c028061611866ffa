// Go's path/filepath Join, Dir and Clean on Unix (src/go/filepath.ts). Expected values were
// printed by Go 1.26's path/filepath for these inputs; the first five Join cases are also the
// package's documented example.
import { expect, it } from '@jest/globals'
import { goClean, goDir, goJoin } from '../../../src/go/filepath.js'

it.each([
  [['a', 'b', 'c'], 'a/b/c'],
  [['a', 'b/c'], 'a/b/c'],
  [['a/b', 'c'], 'a/b/c'],
  [['a/b', '/c'], 'a/b/c'],
  [['a/b', '../../../xyz'], '../xyz'],
  [['', ''], ''],
  [['a', ''], 'a'],
  [['', 'a'], 'a'],
  [['.', 'charts'], 'charts'],
  [['.', './charts/'], 'charts'],
  [['conf', '/abs/x'], 'conf/abs/x'],
  [['/', '..'], '/'],
  [['a//b', './c/.'], 'a/b/c']
])('Join(%j) is %j', (elements, joined) => {
  expect(goJoin(...elements)).toBe(joined)
})

it.each([
  ['tazuna.yaml', '.'],
  ['/a/b.yaml', '/a'],
  ['a/b.yaml', 'a'],
  ['', '.'],
  ['a/', 'a'],
  ['/', '/'],
  ['./x/../y.yaml', '.'],
  ['//a', '/']
])('Dir(%j) is %j', (p, dir) => {
  expect(goDir(p)).toBe(dir)
})

it.each([
  ['', '.'],
  ['./', '.'],
  ['a//b/', 'a/b'],
  ['../a/..', '..'],
  ['/..', '/'],
  ['.', '.'],
  ['a/./b/', 'a/b']
])('Clean(%j) is %j', (p, clean) => {
  expect(goClean(p)).toBe(clean)
})
