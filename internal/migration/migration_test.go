package migration

import (
	"testing"
	"testing/fstest"
)

func TestListOrdersByVersion(t *testing.T) {
	fsys := fstest.MapFS{
		"m/0010_ten.sql": {}, "m/0002_two.sql": {}, "m/0001_one.sql": {},
	}
	files := List(fsys, "m")
	if len(files) != 3 || files[0].Name != "0001_one.sql" || files[1].Version != 2 || files[2].Version != 10 || Latest(files) != 10 {
		t.Fatalf("List = %+v", files)
	}
	defer func() {
		if recover() == nil {
			t.Error("a file without a version did not panic")
		}
	}()
	List(fstest.MapFS{"m/init.sql": {}}, "m")
}
