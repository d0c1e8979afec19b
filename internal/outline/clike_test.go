package outline

import (
	"slices"
	"testing"
)

func TestJava(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "annotations, generics, constructors, enums",
		path: "src/main/java/com/acme/UserService.java",
		src: `package com.acme;

import java.util.*;

/**
 * public void notAMethod() {}
 */
@Service
@RequiredArgsConstructor(onConstructor = @__(@Inject))
public class UserService<T extends Comparable<T>> implements Service {
    private static final Logger log = LoggerFactory.getLogger(UserService.class);
    private final Map<String, List<T>> cache = new HashMap<>();

    public UserService(Repo repo) {
        this.repo = repo;
    }

    @Override
    @Transactional(readOnly = true)
    public <R> List<R> findAll(Function<T, R> mapper)
            throws IOException {
        for (T t : items) {
            process(t);
        }
        return List.of();
    }

    protected static synchronized int count() { return 0; }

    abstract void hook();

    public enum Status {
        ACTIVE("a"), INACTIVE("i");

        private final String code;

        Status(String code) { this.code = code; }

        public String code() { return code; }
    }

    private final Runnable r = new Runnable() {
        public void run() {}
    };

    String text = """
        public void inTextBlock() {}
        """;
}

interface Repo {
    Optional<User> find(long id);
    default void close() {}
}

record Point(int x, int y) {
    Point {
        if (x < 0) throw new IllegalArgumentException();
    }
    static Point origin() { return new Point(0, 0); }
}

@interface Audited {
    String value() default "";
}
`,
		want: []string{
			"10 class UserService", "14 method UserService", "20 method findAll", "28 method count",
			"30 method hook", "32 enum Status", "37 method Status", "39 method code", "51 interface Repo",
			"52 method find", "53 method close", "56 class Point", "60 method origin", "63 interface Audited",
			"64 method value",
		},
	}})
}

func TestCSharp(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "namespaces, attributes, properties, operators",
		path: "src/Api/Controllers/UsersController.cs",
		src: `using System;

namespace Acme.Api.Controllers
{
    [ApiController]
    [Route("api/[controller]")]
    public sealed partial class UsersController : ControllerBase, IDisposable
    {
        private readonly IUserService _users;
        public int Count { get; private set; }
        public string Name => _users.Name();

        public UsersController(IUserService users)
        {
            _users = users;
        }

        [HttpGet("{id}")]
        public async Task<ActionResult<UserDto>> Get(int id, CancellationToken ct = default)
        {
            var s = @"public void NotAMethod() { ""quoted"" }";
            return Ok(await _users.GetAsync(id, ct));
        }

        public T Convert<T>(object o) where T : class => o as T;

        public static Money operator +(Money a, Money b) => new Money(a.Value + b.Value);

        #region Disposal
        public void Dispose() { }
        #endregion
    }

    public interface IUserService
    {
        Task<UserDto> GetAsync(int id, CancellationToken ct);
    }

    public record UserDto(int Id, string Name);
    public record struct Point(int X, int Y);
    internal enum Role { Admin, User }
    public struct Money { public decimal Value; }
}
`,
		want: []string{
			"3 namespace Acme.Api.Controllers", "7 class UsersController", "13 method UsersController",
			"19 method Get", "25 method Convert", "27 method operator +", "30 method Dispose",
			"34 interface IUserService", "36 method GetAsync", "39 class UserDto", "40 struct Point",
			"41 enum Role", "42 struct Money",
		},
	}, {
		name: "file-scoped namespace",
		path: "Program.cs",
		src:  "namespace Acme;\n\npublic static class Program\n{\n    public static void Main(string[] args) => Run(args);\n}\n",
		want: []string{"1 namespace Acme", "3 class Program", "5 method Main"},
	}})
}

func TestCpp(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "templates, qualified definitions, calls",
		path: "src/store.cpp",
		src: `#include "store.h"
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define BODY { \
    int not_a_function(void); \
}

namespace acme {
namespace {
int helper(int x) { return x * 2; }
}  // namespace

template <typename T>
T max_of(const std::vector<T>& xs) {
    return *std::max_element(xs.begin(), xs.end());
}

template <typename K, typename V>
class Cache final : public Base<K> {
public:
    explicit Cache(size_t cap) : cap_(cap), items_{} {}
    ~Cache() override;
    V get(const K& key) const;
    Cache& operator=(const Cache&) = default;
    bool operator==(const Cache& o) const { return cap_ == o.cap_; }

private:
    size_t cap_;
    int (*callback_)(int);
};

Store::Store(std::string dir)
    : dir_(std::move(dir)),
      count_(0) {
    init(dir_);
}

Store::~Store() {}

std::optional<Blob> Store::get(const std::string& key) const noexcept {
    auto it = blobs_.find(key);
    if (it == blobs_.end()) {
        return std::nullopt;
    }
    return process(it->second);
}

auto Store::size() const -> size_t { return blobs_.size(); }

void declared_only(int x);
static const struct ops store_ops = {
    .get = get,
};
struct Node;
struct Node {
    Node* next;
};
enum class Color : uint8_t { Red, Green };

#if 0
int dead_code() { return 0; }
#endif

#ifdef _WIN32
int platform_init(HANDLE h) {
#else
int platform_init(int fd) {
#endif
    return 0;
}

extern "C" {
int c_api(void) { return 1; }
}

TEST(StoreTest, PutThenGet) {
    EXPECT_EQ(1, 1);
}

}  // namespace acme
`,
		want: []string{
			"7 namespace acme", "9 func helper", "13 func max_of", "18 class Cache", "20 method Cache",
			"21 method ~Cache", "22 method get", "23 method operator=", "24 method operator==",
			"31 func Store::Store", "37 func Store::~Store", "39 func Store::get", "47 func Store::size",
			"54 struct Node", "57 enum Color", "64 func platform_init", "66 func platform_init",
			"72 func c_api", "75 test StoreTest.PutThenGet",
		},
	}})
}

func TestC(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "definitions, prototypes, K&R style",
		path: "src/list.c",
		src: `#include <stdlib.h>

static int count;
int add(int a, int b);

struct list {
	struct node *head;
};

static struct node *
new_node(int value)
{
	struct node *n = malloc(sizeof *n);
	if (n == NULL)
		return NULL;
	return n;
}

int add(int a, int b) { return a + b; }

void
list_free(struct list *l)
{
	free(l);
}

int main(int argc, char **argv)
{
	char *s = "int fake(void) {";
	printf("%d\n", add(1, 2));
	return 0;
}

typedef struct { int x; } point;
typedef int (*callback)(int);
`,
		want: []string{"6 struct list", "11 func new_node", "19 func add", "22 func list_free", "27 func main"},
	}, {
		name: "header",
		path: "include/list.h",
		src: `#ifndef LIST_H
#define LIST_H

struct list;

/* Frees the list. */
void list_free(struct list *l);
int list_len(const struct list *l);
static inline int list_empty(const struct list *l) { return list_len(l) == 0; }

#endif
`,
		want: []string{"7 func list_free", "8 func list_len", "9 func list_empty"},
	}})
}

func TestCText(t *testing.T) {
	src := []byte("static struct node *\nnew_node(int value)\n{\n}\n")
	syms := Outline("x.c", src, 0)
	if len(syms) != 1 || syms[0].Text != "static struct node * new_node(int value)" {
		t.Errorf("got %+v", syms)
	}
}

func TestDart(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "classes and top-level functions",
		path: "lib/main.dart",
		src: `import 'package:flutter/material.dart';

void main() {
  runApp(const App());
}

main2() => print('x');

abstract class Shape {
  double get area;
  Shape();
  factory Shape.circle(double r) => Circle(r);
  double scaled(double k) {
    return area * k;
  }
}

mixin Logging on Object {
  void log(String m) {}
}

extension StringX on String {
  String shout() => toUpperCase();
}

Future<List<int>> fetch() async {
  return [];
}
`,
		want: []string{
			"3 func main", "9 class Shape", "11 method Shape", "12 method Shape.circle", "13 method scaled",
			"18 class Logging", "19 method log", "22 extension StringX", "23 method shout", "26 func fetch",
		},
	}})
}

// TestCHeaderOrSource: in a source file, a prototype is not a
// declaration worth showing; in a header, it is the API.
func TestCHeaderOrSource(t *testing.T) {
	src := []byte("int f(int x);\nint g(void) { return 0; }\n")
	if got, want := render(Outline("x.c", src, 0)), []string{"2 func g"}; !slices.Equal(got, want) {
		t.Errorf("x.c:\n%s", diff(got, want))
	}
	if got, want := render(Outline("x.h", src, 0)), []string{"1 func f", "2 func g"}; !slices.Equal(got, want) {
		t.Errorf("x.h:\n%s", diff(got, want))
	}
}
