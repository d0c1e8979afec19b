package outline

import (
	"testing"
	"time"
)

func TestKotlin(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "classes, objects, extension functions",
		path: "app/src/main/kotlin/com/acme/UserRepository.kt",
		src: `package com.acme

import kotlinx.coroutines.flow.Flow

/* fun commented() {} */
@Singleton
class UserRepository @Inject constructor(
    private val api: Api,
) : Repository {
    constructor(api: Api, cache: Cache) : this(api)

    override suspend fun find(id: Long): User? = api.user(id)

    private inline fun <reified T> decode(s: String): T {
        val template = """
            fun notReal() {}
        """
        return Json.decodeFromString(s)
    }

    companion object {
        const val TAG = "repo"
        fun create(): UserRepository = TODO()
    }
}

data class User(val id: Long, val name: String)
sealed interface Result<out T>
enum class Role { ADMIN, USER }
object Registry {
    fun register(r: Repository) {}
}
fun interface Callback { fun call() }
typealias Users = List<User>

fun <T> List<T>.second(): T = this[1]
fun String.toSlug() = lowercase()

class ` + "`" + `Legacy Name` + "`" + `
@Test fun ` + "`" + `returns 404 when missing` + "`" + `() {}
`,
		want: []string{
			"7 class UserRepository", "10 method constructor", "12 method find", "14 method decode",
			"21 object Companion", "23 method create", "27 class User", "28 interface Result", "29 enum Role",
			"30 object Registry", "31 method register", "33 interface Callback", "34 type Users",
			"36 func second", "37 func toSlug", "39 class Legacy Name", "40 func returns 404 when missing",
		},
	}})
}

func TestSwift(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "types, extensions, attributes",
		path: "Sources/App/UserStore.swift",
		src: `import SwiftUI

@MainActor
public final class UserStore: ObservableObject {
    @Published private(set) var users: [User] = []

    init(api: API) { self.api = api }
    convenience init?(json: String) { self.init(api: .live) }
    deinit {}

    func load() async throws {
        let s = #"func notReal() { "x" }"#
        users = try await api.fetch()
    }

    class func shared() -> UserStore { fatalError() }
    static func == (lhs: UserStore, rhs: UserStore) -> Bool { true }
    subscript(index: Int) -> User { users[index] }
}

protocol API {
    func fetch() async throws -> [User]
}

extension UserStore: CustomStringConvertible {
    var description: String { "store" }
}

struct User: Codable, Identifiable {
    let id: UUID
}

enum Loading<T> {
    case idle, loaded(T)
}

actor Cache {}

#if DEBUG
func debugDump() {}
#endif

#Preview {
    ContentView()
}

private func helper() {}
`,
		want: []string{
			"4 class UserStore", "7 method init", "8 method init", "9 method deinit", "11 method load",
			"16 method shared", "17 method ==", "18 method subscript", "21 protocol API", "22 method fetch",
			"25 extension UserStore", "29 struct User", "33 enum Loading", "37 actor Cache",
			"40 func debugDump", "47 func helper",
		},
	}})
}

func TestPHP(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "namespaced classes",
		path: "src/Controller/UserController.php",
		src: `<?php

declare(strict_types=1);

namespace App\Controller;

use App\Entity\User;

# function hashComment() {}
#[Route('/users', name: 'users')]
final class UserController extends AbstractController
{
    public function __construct(private readonly UserRepository $users) {}

    #[Route('/{id}', methods: ['GET'])]
    public function show(int $id): Response
    {
        $sql = <<<SQL
            function notInHeredoc() {}
            SQL;
        return $this->json($this->users->find($id));
    }

    private static function &cache(): array { static $c = []; return $c; }

    abstract protected function hook(): void;
}

interface Repository
{
    public function find(int $id): ?User;
}

trait Timestamps
{
    public function touch(): void {}
}

enum Status: string
{
    case Active = 'active';
    public function label(): string { return ucfirst($this->value); }
}

function helper(array $xs): int
{
    $f = function ($x) { return $x; };
    return array_sum(array_map(fn($x) => $x * 2, $xs));
}
?>
<p>Don't function outside() {}</p>
<?php function after(): void {}
`,
		want: []string{
			"5 namespace App\\Controller", "11 class UserController", "13 method __construct", "16 method show",
			"24 method cache", "26 method hook", "29 interface Repository", "31 method find", "34 trait Timestamps",
			"36 method touch", "39 enum Status", "42 method label", "45 func helper",
		},
	}, {
		name: "template",
		path: "templates/page.php",
		src:  "<html>\n<body>\n<p>It's a page with function inside() {}</p>\n<?php\nfunction render($x) {\n  return $x;\n}\n?>\n</body>\n",
		want: []string{"5 func render"},
	}})
}

// TestKotlinDigitName: a name starting with a digit (not valid Kotlin,
// but any bytes can come in) once made the scanner loop for ever.
func TestKotlinDigitName(t *testing.T) {
	done := make(chan []Symbol)
	go func() { done <- Outline("x.kt", []byte("fun 9x() {}\nfun ok() {}\n"), 0) }()
	select {
	case syms := <-done:
		if len(syms) == 0 || syms[len(syms)-1].Name != "ok" {
			t.Errorf("got %v", render(syms))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Outline did not return")
	}
}
