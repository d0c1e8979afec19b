package outline

import (
	"slices"
	"testing"
)

func TestTypeScript(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "overloads, abstract classes, generics, arrows",
		path: "src/store.ts",
		src: `import { Injectable } from "@angular/core";

/**
 * function inComment() {}
 */
export interface Repo<T extends { id: string }> {
  get(id: string): Promise<T>;
  readonly size: number;
  onChange: (item: T) => void;
}

export type Handler<E = Event> = (e: E) => void;
type Options = { retries: number };

export enum Color { Red, Green }
declare const enum Flags { A = 1 }

export function parse(s: string): number;
export function parse(s: string, radix: number): number;
export function parse(s: string, radix = 10): number {
  const re = /function fake\(\) {/g;
  return parseInt(s, radix);
}

@Injectable({ providedIn: "root" })
export abstract class Base<T> implements Repo<T> {
  private cache = new Map<string, T>();
  static count = 0;

  constructor(private readonly http: Http) {}

  abstract get(id: string): Promise<T>;

  get size(): number { return this.cache.size; }
  set size(n: number) {}

  async *entries(): AsyncGenerator<T> {}

  #secret(): void {}

  [Symbol.iterator]() {}

  protected handle = async (e: Event): Promise<void> => {
    console.log(` + "`function ${e.type}() {`" + `);
  };

  private label: string = "x";
}

export const add = (a: number, b: number): number => a + b;
export const fetchAll = async <T,>(urls: string[]): Promise<T[]> => {
  return Promise.all(urls.map((u) => fetch(u)));
};
const Widget: React.FC<Props> = ({
  title,
  items,
}) => {
  return <div className="w">{title}</div>;
};
const config = { retries: 3 };
const total = (1 + 2) * 3;
let legacy = function named() {};
export default class App {}
namespace Validation {
  export function isEmail(s: string) { return true; }
}
declare module "express" {
  interface Request { user?: User }
}
`,
		want: []string{
			"6 interface Repo", "7 method get", "12 type Handler", "13 type Options", "15 enum Color",
			"16 enum Flags", "18 func parse", "19 func parse", "20 func parse", "26 class Base",
			"30 method constructor", "32 method get", "34 method size", "35 method size", "37 method entries",
			"39 method #secret", "41 method [Symbol.iterator]", "43 method handle",
			"50 func add", "51 func fetchAll", "54 func Widget", "62 func legacy", "63 class App",
			"64 module Validation", "65 func isEmail", "67 module express", "68 interface Request",
		},
	}, {
		name: "jsx component and tests",
		path: "src/App.test.tsx",
		src: `import { render } from "@testing-library/react";

describe("App", () => {
  beforeEach(() => {
    jest.resetAllMocks();
  });

  it("renders the title", async () => {
    render(<App title="Don't {panic}" />);
  });

  it.each([1, 2])("handles %i", (n) => {});

  test.skip('is skipped', () => {});
});

export default function App({ title }: Props) {
  const onClick = useCallback(() => {}, []);
  return <h1 onClick={onClick}>{title}</h1>;
}
`,
		want: []string{
			"3 test App", "8 test renders the title", "14 test is skipped", "17 func App",
		},
	}})
}

func TestJavaScript(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "commonjs, prototypes, objects",
		path: "lib/index.js",
		src: `'use strict';
const path = require('path');

function Store(dir) {
  this.dir = dir;
}

Store.prototype.put = function (key, value) {
  return path.join(this.dir, key);
};

module.exports = function createStore(dir) {
  return new Store(dir);
};

exports.parse = (s) => JSON.parse(s);
module.exports.VERSION = '1.0';

const Hooks = {};

Hooks.Terminal = {
  mounted() {
    this.el.addEventListener("click", () => {});
  },
  updated: function () {},
  destroyed: () => {},
  options: { retries: 3 },
  nested: {
    deep() {},
  },
};

export default {
  name: "widget",
  data() {
    return { n: 1 };
  },
  methods: {
    increment() { this.n++; },
  },
};

const settings = { debug: false };
`,
		want: []string{
			"4 func Store", "8 method Store.prototype.put", "12 func module.exports", "16 func parse",
			"21 object Hooks.Terminal", "22 method mounted", "25 method updated", "26 method destroyed",
			"28 object nested", "29 method deep", "33 object default", "35 method data", "38 object methods",
			"39 method increment",
		},
	}, {
		name: "regex and template literals",
		path: "x.mjs",
		src:  "const re = /'[{]/;\nconst t = `\n}\nfunction notReal() {\n`;\nconst d = a / b / c; // '\nfunction real() {\n  return /}\"/.test(`${x}`) + '`';\n}\nasync function after() {}\n",
		want: []string{"7 func real", "10 func after"},
	}})
}

func TestJSText(t *testing.T) {
	src := []byte("export const fetchAll = async (\n  urls: string[],\n) => {\n};\nclass A {\n  handle = (e) => { go(e); };\n}\n")
	var got []string
	for _, s := range Outline("x.ts", src, 0) {
		got = append(got, s.Text)
	}
	want := []string{"export const fetchAll = async (urls: string[],) =>", "class A", "handle = (e) =>"}
	if !slices.Equal(got, want) {
		t.Errorf("\n%s", diff(got, want))
	}
}

func TestJSResync(t *testing.T) {
	// A regular expression the lexer takes for a division (after an
	// identifier, in this contrived line) leaves its { open for good. The
	// export at the margin puts things right.
	src := []byte("function a(s) {\n  return s.length /{/.test(s)\n}\nexport function b() {}\nexport class C {\n  m() {}\n}\n")
	want := []string{"1 func a", "4 func b", "5 class C", "6 method m"}
	if got := render(Outline("x.js", src, 0)); !slices.Equal(got, want) {
		t.Errorf("\n%s", diff(got, want))
	}
}
