package plural

import "testing"

func TestN(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{N(0, "poll"), "0 polls"},
		{N(1, "poll"), "1 poll"},
		{N(2, "poll"), "2 polls"},
		{N(-1, "poll"), "-1 polls"},
		{N(int64(1), "transient error"), "1 transient error"},
		{N(int32(21), "waiter"), "21 waiters"},
		{"1 attempt" + S(1), "1 attempt"},
		{"5 attempt" + S(5), "5 attempts"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
