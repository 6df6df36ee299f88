package apiserver

import (
	"net"
	"net/url"
	"testing"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"k8s.io/apiserver/pkg/storage/etcd3/testserver"
)

// What etcd says when its client port is taken is what RunEtcd retries
// on; anything else is not.
func TestAddressInUse(t *testing.T) {
	taken, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := testserver.NewTestConfig(t)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.ListenClientUrls = []url.URL{{Scheme: "http", Host: taken.Addr().String()}}
	e, err := embed.StartEtcd(cfg)
	if err == nil {
		e.Close()
		t.Fatal("etcd started on a port in use")
	}
	if !addressInUse(err) {
		t.Errorf("addressInUse(%q) = false", err)
	}
	if addressInUse(net.UnknownNetworkError("tcp9")) {
		t.Error("addressInUse is true of an unknown network")
	}
	// And RunEtcd still starts one.
	if c := RunEtcd(t); len(c.Endpoints()) == 0 {
		t.Error("no endpoints")
	}
}
