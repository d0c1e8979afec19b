package outline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const benchSize = 256 << 10 // the largest file Claude Code's Read returns whole

// goSource is 256 KB of real Go: the standard library's net/http, whose
// files are as long as the ones agents read whole.
func goSource(tb testing.TB) []byte {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	var b bytes.Buffer
	for _, p := range paths {
		if b.Len() >= benchSize {
			break
		}
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(src)
	}
	if b.Len() < benchSize {
		tb.Skipf("no Go sources in GOROOT (%s)", runtime.GOROOT())
	}
	return b.Bytes()[:benchSize]
}

// tsSource is 256 KB of TypeScript shaped like an application's: imports,
// interfaces, classes with decorators and methods, arrow functions,
// template literals, JSX, comments.
func tsSource() []byte {
	var b bytes.Buffer
	b.WriteString("import { Injectable } from '@angular/core';\nimport type { Observable } from 'rxjs';\n\n")
	for i := 0; b.Len() < benchSize; i++ {
		fmt.Fprintf(&b, `/**
 * Service%[1]d keeps the state of widget %[1]d.
 * function notADeclaration() {}
 */
export interface Widget%[1]dProps<T = unknown> {
  id: string;
  items: ReadonlyArray<T>;
  onSelect?: (item: T, index: number) => void;
  render(item: T): string;
}

export type Widget%[1]dState = { loading: boolean; error?: Error };

@Injectable({ providedIn: 'root' })
export class Service%[1]d<T extends { id: string }> extends BaseService implements OnDestroy {
  private readonly cache = new Map<string, T>();
  static instances = 0;

  constructor(private readonly http: HttpClient, @Inject(TOKEN) private token: string) {
    super();
  }

  async load(id: string, options: LoadOptions = {}): Promise<T | undefined> {
    if (this.cache.has(id)) {
      return this.cache.get(id);
    }
    const url = `+"`${this.base}/widgets/${id}?v=${options.version ?? 1}`"+`;
    const res = await this.http.get<T>(url, { headers: { 'x-token': this.token } });
    this.cache.set(id, res);
    return res; // cached from now on
  }

  handleClick = (event: MouseEvent): void => {
    const re = /^widget-(\d+)$/;
    console.log("clicked", event.target, re.test(String(event.detail)));
  };

  ngOnDestroy(): void {
    this.cache.clear();
  }
}

export const useWidget%[1]d = ({ id, items }: Widget%[1]dProps<string>) => {
  const [state, setState] = useState<Widget%[1]dState>({ loading: true });
  useEffect(() => {
    fetchWidget(id).then((w) => setState({ loading: false }));
  }, [id]);
  return (
    <div className="widget" data-id={id}>
      {items.map((item, i) => <span key={i}>{item}</span>)}
    </div>
  );
};

export function formatWidget%[1]d(w: Widget%[1]dProps, locale = 'en'): string {
  return w.items.join(', ');
}

`, i)
	}
	return b.Bytes()[:benchSize]
}

// minifiedJS is a 2 MB bundle on one line.
func minifiedJS() []byte {
	var b bytes.Buffer
	b.WriteString(`!function(e,t){"object"==typeof exports?module.exports=t():e.lib=t()}(this,function(){"use strict";`)
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, `var a%[1]d=function(e){return e&&e.__esModule?e:{default:e}},b%[1]d=/[\/"'{}]+/g;function c%[1]d(e,t){for(var n=0;n<e.length;n++){if(t(e[n],"}{\""))return n}return-1}class D%[1]d{constructor(e){this.x=e+'}'}get y(){return`+"`${this.x}`"+`}}`, i)
	}
	b.WriteString("});")
	return b.Bytes()
}

func benchmarkOutline(b *testing.B, path string, src []byte) {
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n = len(Outline(path, src, 0))
	}
	b.ReportMetric(float64(n), "symbols")
}

func BenchmarkGo256K(b *testing.B)     { benchmarkOutline(b, "big.go", goSource(b)) }
func BenchmarkTS256K(b *testing.B)     { benchmarkOutline(b, "big.tsx", tsSource()) }
func BenchmarkMinified2M(b *testing.B) { benchmarkOutline(b, "bundle.min.js", minifiedJS()) }
func BenchmarkPython256K(b *testing.B) { benchmarkOutline(b, "big.py", pythonSource()) }
func BenchmarkElixir256K(b *testing.B) { benchmarkOutline(b, "big.ex", elixirSource()) }
func BenchmarkLanguage(b *testing.B) {
	for b.Loop() {
		Language("lib/spotter_web/live/session_live.ex", nil)
	}
}

func pythonSource() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < benchSize; i++ {
		fmt.Fprintf(&b, `class Handler%[1]d(BaseHandler):
    """Handles requests of kind %[1]d.

    def not_a_method(self): the docstring says so
    """

    retries = 3

    def __init__(self, client, *, timeout=30.0):
        self.client = client
        self.timeout = timeout  # seconds

    @property
    def name(self) -> str:
        return f"handler-{self.client.name!r}-%[1]d"

    async def handle(self, request: Request, **kwargs) -> Response:
        data = {"id": request.id, "items": [x for x in request.items if x]}
        async with self.client.session() as s:
            return await s.post("/api/%[1]d", json=data)


def make_handler%[1]d(
    client,
    timeout=30.0,
):
    return Handler%[1]d(client, timeout=timeout)


`, i)
	}
	return b.Bytes()[:benchSize]
}

func elixirSource() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < benchSize; i++ {
		fmt.Fprintf(&b, `defmodule MyAppWeb.Page%[1]dLive do
  @moduledoc """
  The page %[1]d.

      def example, do: :not_a_def
  """
  use MyAppWeb, :live_view

  @impl true
  def mount(%%{"id" => id}, _session, socket) do
    {:ok, assign(socket, id: id, items: [])}
  end

  @impl true
  def handle_event("save", %%{"item" => item}, socket) when is_map(item) do
    {:noreply, update(socket, :items, &[item | &1])}
  end

  def handle_event("delete", %%{"id" => id}, socket) do
    {:noreply, socket |> put_flash(:info, "Deleted #{id}")}
  end

  defp format(nil), do: ""
  defp format(item), do: "#{item.name} (#{item.count})"

  def render(assigns) do
    ~H"""
    <div id="page-%[1]d">
      <%%= for item <- @items do %%>
        <span><%%= format(item) %%></span>
      <%% end %%>
    </div>
    """
  end
end

`, i)
	}
	return b.Bytes()[:benchSize]
}
