package billing_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/runpodkit/runpod-go"
	"github.com/runpodkit/runpod-go/billing"
	"github.com/runpodkit/runpod-go/errs"
	"github.com/runpodkit/runpod-go/internal/testkit"
	"github.com/runpodkit/runpod-go/option"
	"github.com/runpodkit/runpod-go/runpodtest"
	"github.com/runpodkit/runpod-go/runpodtest/contract"
)

// now is the fake platform's clock in these tests: a Wednesday.
var now = ts("2026-06-03T15:04:05Z")

func fake(t *testing.T, opts ...option.RequestOption) (*runpodtest.Server, *runpod.Client) {
	t.Helper()
	srv := runpodtest.NewServer(contract.Check(), runpodtest.WithClock(func() time.Time { return now }))
	t.Cleanup(srv.Close)
	log, _ := testkit.Logger()
	rp, err := srv.NewClient(append([]option.RequestOption{option.WithLogger(log)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(rp.CloseIdleConnections)
	return srv, rp
}

// seed records serverless spend of two endpoints over three days.
func seed(srv *runpodtest.Server) {
	srv.AddServerlessUsage(
		runpodtest.ServerlessUsage{At: ts("2026-06-01T01:00:00Z"), ServerlessID: "ep-a", GPU: 1.5, CPU: 0.25, Disk: 0.1, Fee: 0.05},
		runpodtest.ServerlessUsage{At: ts("2026-06-01T13:00:00Z"), ServerlessID: "ep-a", GPU: 2, Fee: 0.1},
		runpodtest.ServerlessUsage{At: ts("2026-06-02T09:00:00Z"), ServerlessID: "ep-b", GPU: 4, Disk: 0.2},
		runpodtest.ServerlessUsage{At: ts("2026-06-03T10:00:00Z"), ServerlessID: "ep-a", CPU: 0.5},
		runpodtest.ServerlessUsage{At: ts("2026-04-01T10:00:00Z"), ServerlessID: "ep-old", GPU: 9},
	)
}

func lastRequest(srv *runpodtest.Server) runpodtest.Request {
	reqs := srv.Requests()
	return reqs[len(reqs)-1]
}

// TestQueryOnTheWire: exact query strings and headers, parameters in the
// documented order, times in UTC.
func TestQueryOnTheWire(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Clone(r.Context()))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"records":[],"metadata":{"query":{"startTime":"2026-06-01T00:00:00Z","endTime":"2026-06-02T00:00:00Z","bucketSize":"day"},"recordCount":0,"totals":{"totalAmount":0,"gpuAmount":0,"cpuAmount":0,"diskAmount":0,"feeAmount":0},"uniqueServerlessCount":0}}`)
	}))
	defer srv.Close()
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithBaseURL(srv.URL))
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	paris := time.FixedZone("CEST", 2*3600)

	cases := []struct {
		name  string
		call  func() error
		path  string
		query string
	}{
		{"defaults", func() error { _, err := rp.Billing.Serverless(t.Context(), billing.Params{}); return err },
			"/v2/billing/serverless", ""},
		{"range in UTC", func() error {
			_, err := rp.Billing.Serverless(t.Context(), billing.Params{
				Start: time.Date(2026, 6, 1, 2, 0, 0, 0, paris), End: time.Date(2026, 6, 2, 2, 0, 0, 0, paris), Bucket: billing.BillingBucketSizeHour, ID: "ep 1/x"})
			return err
		}, "/v2/billing/serverless", "startTime=2026-06-01T00%3A00%3A00Z&endTime=2026-06-02T00%3A00%3A00Z&bucketSize=hour&serverlessId=ep+1%2Fx"},
		{"sub-second", func() error {
			_, err := rp.Billing.Serverless(t.Context(), billing.Params{Start: ts("2026-06-01T00:00:00.5Z")})
			return err
		}, "/v2/billing/serverless", "startTime=2026-06-01T00%3A00%3A00.5Z"},
		{"lastN", func() error {
			_, err := rp.Billing.Serverless(t.Context(), billing.Params{LastN: 7, Bucket: billing.BillingBucketSizeWeek})
			return err
		}, "/v2/billing/serverless", "bucketSize=week&lastN=7"},
		{"summary", func() error { _, err := rp.Billing.Summary(t.Context(), billing.Params{LastN: 2}); return err },
			"/v2/billing", "lastN=2"},
		{"pods", func() error { _, err := rp.Billing.Pods(t.Context(), billing.Params{ID: "pod1"}); return err },
			"/v2/billing/pods", "podId=pod1"},
		{"endpoints", func() error {
			_, err := rp.Billing.Endpoints(t.Context(), billing.Params{Bucket: billing.BillingBucketSizeMonth})
			return err
		},
			"/v2/billing/endpoints", "bucketSize=month"},
		{"network volumes", func() error { _, err := rp.Billing.NetworkVolumes(t.Context(), billing.Params{ID: "nv1"}); return err },
			"/v2/billing/network-volumes", "networkVolumeId=nv1"},
		{"clusters", func() error {
			_, err := rp.Billing.Clusters(t.Context(), billing.Params{ID: "c1", Bucket: billing.BillingBucketSizeYear})
			return err
		},
			"/v2/billing/clusters", "bucketSize=year&clusterId=c1"},
	}
	for i, c := range cases {
		require.NoError(t, c.call(), c.name)
		mu.Lock()
		r := got[i]
		mu.Unlock()
		assert.Equal(t, "GET", r.Method, c.name)
		assert.Equal(t, c.path, r.URL.Path, c.name)
		assert.Equal(t, c.query, r.URL.RawQuery, c.name)
		assert.Equal(t, "Bearer rpa_0123456789ABCDEF0123456789ABCDEF", r.Header.Get("Authorization"), c.name)
		assert.Equal(t, "application/json", r.Header.Get("Accept"), c.name)
		assert.Empty(t, r.Header.Get("Content-Type"), c.name)
		assert.Zero(t, r.ContentLength, c.name)
	}
}

// TestDecodeSpecExample decodes the platform's documented 200 body.
func TestDecodeSpecExample(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("RateLimit", `"minute";r=59;t=12`)
		_, _ = io.WriteString(w, `{"records":[{"startTime":"2026-06-01T00:00:00Z","endTime":"2026-06-02T00:00:00Z","serverlessId":"4m7x2k9q",
  "totalAmount":8.9,"gpuAmount":7.5,"cpuAmount":0,"diskAmount":0.4,"feeAmount":1.0}],
 "metadata":{"query":{"startTime":"2026-06-01T00:00:00Z","endTime":"2026-06-02T00:00:00Z","bucketSize":"day","serverlessId":"4m7x2k9q"},
  "recordCount":1,"totals":{"totalAmount":8.9,"gpuAmount":7.5,"cpuAmount":0,"diskAmount":0.4,"feeAmount":1.0},
  "uniqueServerlessCount":1}}`)
	}))
	defer srv.Close()
	rp, err := runpod.NewClient(option.WithAPIKey("rpa_0123456789ABCDEF0123456789ABCDEF"), option.WithBaseURL(srv.URL))
	require.NoError(t, err)
	defer rp.CloseIdleConnections()
	var info option.ResponseInfo
	rep, err := rp.Billing.Serverless(t.Context(), billing.Params{ID: "4m7x2k9q"}, option.WithResponseInto(&info))
	require.NoError(t, err)
	require.Len(t, rep.Records, 1)
	r := rep.Records[0]
	assert.Equal(t, billing.ServerlessBillingRecord{StartTime: ts("2026-06-01T00:00:00Z"), EndTime: ts("2026-06-02T00:00:00Z"), ServerlessID: "4m7x2k9q",
		TotalAmount: billing.Dollars(8.9), GPUAmount: billing.Dollars(7.5), DiskAmount: billing.Dollars(0.4), FeeAmount: billing.Dollars(1.0)}, r)
	assert.Equal(t, billing.BillingBucketSizeDay, rep.Metadata.Query.BucketSize)
	require.NotNil(t, rep.Metadata.Query.ServerlessID)
	assert.Equal(t, "4m7x2k9q", *rep.Metadata.Query.ServerlessID)
	assert.Equal(t, 1, rep.Metadata.UniqueServerlessCount)
	assert.NoError(t, rep.Reconcile())
	m, ok := info.RateLimit.Window("minute")
	assert.True(t, ok)
	assert.Equal(t, int64(59), m.Remaining)
}

// TestValidationBeforeSending: bad params never reach the server.
func TestValidationBeforeSending(t *testing.T) {
	srv, rp := fake(t)
	start, end := ts("2026-06-02T00:00:00Z"), ts("2026-06-01T00:00:00Z")
	cases := []struct {
		name  string
		call  func() error
		field string
	}{
		{"lastN negative", func() error { _, err := rp.Billing.Serverless(t.Context(), billing.Params{LastN: -1}); return err }, "Params.LastN"},
		{"lastN with start", func() error {
			_, err := rp.Billing.Serverless(t.Context(), billing.Params{LastN: 3, Start: start})
			return err
		}, "Params.LastN"},
		{"lastN with end", func() error { _, err := rp.Billing.Pods(t.Context(), billing.Params{LastN: 3, End: end}); return err }, "Params.LastN"},
		{"end before start", func() error {
			_, err := rp.Billing.Serverless(t.Context(), billing.Params{Start: start, End: end})
			return err
		}, "Params.End"},
		{"bad bucket", func() error { _, err := rp.Billing.Clusters(t.Context(), billing.Params{Bucket: "Day"}); return err }, "Params.Bucket"},
		{"id on summary", func() error { _, err := rp.Billing.Summary(t.Context(), billing.Params{ID: "x"}); return err }, "Params.ID"},
		{"id on endpoints", func() error { _, err := rp.Billing.Endpoints(t.Context(), billing.Params{ID: "x"}); return err }, "Params.ID"},
		{"id with spaces", func() error { _, err := rp.Billing.NetworkVolumes(t.Context(), billing.Params{ID: " nv"}); return err }, "Params.ID"},
	}
	for _, c := range cases {
		err := c.call()
		var ve *errs.ValidationError
		require.ErrorAs(t, err, &ve, c.name)
		assert.Equal(t, c.field, ve.Field, c.name)
		assert.ErrorIs(t, err, errs.ErrValidation)
	}
	assert.Zero(t, srv.Count("*"), "no request was sent")
}

func TestTypedErrors(t *testing.T) {
	srv, _ := fake(t, option.WithMaxWait(time.Second))
	t.Run("401", func(t *testing.T) {
		rp, err := srv.NewClient(option.WithAPIKey("rpa_UNKNOWN"))
		require.NoError(t, err)
		_, err = rp.Billing.Serverless(t.Context(), billing.Params{})
		require.ErrorIs(t, err, errs.ErrUnauthorized)
		testkit.NoSecret(t, err)
	})
	t.Run("403", func(t *testing.T) {
		rp, err := srv.NewClient(option.WithAPIKey(srv.NewKey(runpodtest.PermissionPodsRead)))
		require.NoError(t, err)
		_, err = rp.Billing.Serverless(t.Context(), billing.Params{})
		require.ErrorIs(t, err, errs.ErrForbidden)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		m, ok := apiErr.RateLimit.Window("minute")
		require.True(t, ok)
		assert.Equal(t, int64(runpodtest.DefaultQuota().Minute-1), m.Remaining)
		testkit.NoSecret(t, err)
	})
	t.Run("429", func(t *testing.T) {
		key := srv.NewKey(runpodtest.PermissionBillingRead)
		srv.SetQuota(key, runpodtest.Quota{Minute: 1, Hour: 10, Day: 10})
		rp, err := srv.NewClient(option.WithAPIKey(key), option.WithMaxWait(time.Second))
		require.NoError(t, err)
		_, err = rp.Billing.Serverless(t.Context(), billing.Params{})
		require.NoError(t, err)
		_, err = rp.Billing.Serverless(t.Context(), billing.Params{})
		require.ErrorIs(t, err, errs.ErrRateLimited)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, 55*time.Second, apiErr.RetryAfter, "the minute window resets at 15:05:00; the clock says 15:04:05")
		m, _ := apiErr.RateLimit.Window("minute")
		assert.True(t, m.Exhausted())
		assert.Equal(t, int64(1), m.Quota)
		assert.Contains(t, apiErr.Error(), "rate limit exceeded for the minute window")
		testkit.NoSecret(t, err)
	})
	t.Run("400 from the platform", func(t *testing.T) {
		rp, err := srv.NewClient()
		require.NoError(t, err)
		srv.FailNext(runpodtest.RouteBillingServerless, 1, runpodtest.Fault{Status: 400, Header: http.Header{"Content-Type": {"application/problem+json"}},
			Body: `{"title":"Bad Request","status":400,"detail":"request could not be processed","errors":["$: additional properties 'bogus' not allowed"]}`})
		_, err = rp.Billing.Serverless(t.Context(), billing.Params{})
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, []string{"$: additional properties 'bogus' not allowed"}, apiErr.Errors)
	})
}

// TestServerlessSemantics exercises the serverless report against the fake: default
// window and bucket, one record per endpoint per bucket, the filter,
// metadata echo and totals.
func TestServerlessSemantics(t *testing.T) {
	srv, rp := fake(t)
	seed(srv)

	rep, err := rp.Billing.Serverless(t.Context(), billing.Params{})
	require.NoError(t, err)
	q := rep.Metadata.Query
	assert.Equal(t, billing.BillingBucketSizeDay, q.BucketSize, "default bucket")
	assert.Equal(t, ts("2026-05-04T00:00:00Z"), q.StartTime, "30 days ago, snapped down")
	assert.Equal(t, ts("2026-06-04T00:00:00Z"), q.EndTime, "now, snapped up")
	assert.Nil(t, q.ServerlessID)
	assert.Equal(t, 31*2, rep.Metadata.RecordCount, "31 days x 2 endpoints (ep-old is outside the window)")
	assert.Equal(t, 2, rep.Metadata.UniqueServerlessCount)
	assert.Equal(t, []string{"ep-a", "ep-b"}, billing.Resources(rep.Records))
	require.NoError(t, rep.Reconcile())
	assert.Equal(t, billing.Dollars(1.5+0.25+0.1+0.05+2+0.1+4+0.2+0.5), rep.Metadata.Totals.TotalAmount)
	assert.Equal(t, billing.Dollars(7.5), rep.Metadata.Totals.GPUAmount)

	byEndpoint := billing.ByResource(rep.Records)
	require.Len(t, byEndpoint, 2)
	assert.Equal(t, "ep-a", byEndpoint[0].Resource)
	assert.Equal(t, billing.Dollars(4.5), byEndpoint[0].Total)
	assert.Len(t, byEndpoint[0].Records, 31)
	byDay := billing.ByBucket(rep.Records)
	require.Len(t, byDay, 31)
	june1 := byDay[28]
	assert.Equal(t, ts("2026-06-01T00:00:00Z"), june1.Range.StartTime)
	assert.Equal(t, billing.Dollars(4.0), june1.Total)
	assert.Len(t, june1.Records, 2)

	// The filter: every record carries the id, even with no spend.
	rep, err = rp.Billing.Serverless(t.Context(), billing.Params{ID: "ep-b", Start: ts("2026-06-01T12:00:00Z"), End: ts("2026-06-03T00:00:00Z")})
	require.NoError(t, err)
	assert.Equal(t, "startTime=2026-06-01T12%3A00%3A00Z&endTime=2026-06-03T00%3A00%3A00Z&serverlessId=ep-b", rawQuery(srv))
	require.NotNil(t, rep.Metadata.Query.ServerlessID)
	assert.Equal(t, "ep-b", *rep.Metadata.Query.ServerlessID)
	assert.Equal(t, ts("2026-06-01T00:00:00Z"), rep.Metadata.Query.StartTime, "snapped down")
	assert.Equal(t, ts("2026-06-03T00:00:00Z"), rep.Metadata.Query.EndTime, "on a boundary: kept")
	require.Len(t, rep.Records, 2)
	for _, r := range rep.Records {
		assert.Equal(t, "ep-b", r.ServerlessID)
	}
	assert.Zero(t, rep.Records[0].TotalAmount)
	assert.Equal(t, billing.Dollars(4.2), rep.Records[1].TotalAmount)
	assert.Equal(t, 1, rep.Metadata.UniqueServerlessCount)
	require.NoError(t, rep.Reconcile())

	// lastN with hours, ending with the current hour.
	rep, err = rp.Billing.Serverless(t.Context(), billing.Params{LastN: 6, Bucket: billing.BillingBucketSizeHour})
	require.NoError(t, err)
	assert.Equal(t, ts("2026-06-03T10:00:00Z"), rep.Metadata.Query.StartTime)
	assert.Equal(t, ts("2026-06-03T16:00:00Z"), rep.Metadata.Query.EndTime)
	assert.Equal(t, 6, rep.Metadata.RecordCount, "only ep-a spent in the window")
	assert.Equal(t, billing.Dollars(0.5), rep.Metadata.Totals.CPUAmount)
	require.NoError(t, rep.Reconcile())

	// Weekly buckets start on Monday.
	rep, err = rp.Billing.Serverless(t.Context(), billing.Params{LastN: 1, Bucket: billing.BillingBucketSizeWeek})
	require.NoError(t, err)
	assert.Equal(t, ts("2026-06-01T00:00:00Z"), rep.Metadata.Query.StartTime)
	assert.Equal(t, ts("2026-06-08T00:00:00Z"), rep.Metadata.Query.EndTime)
	require.NoError(t, rep.Reconcile())
}

func rawQuery(srv *runpodtest.Server) string {
	r := lastRequest(srv)
	return r.RawQuery
}

// TestPlatformRejectsBadCombinations: the fake answers like the platform
// when a request skips the SDK's checks. What the REST v2 document itself
// refuses (a type, an enum, a minimum) never reaches the report, and the
// problem names the parameter; the combinations only the platform's rules
// refuse reach it and are answered 400 there.
func TestPlatformRejectsBadCombinations(t *testing.T) {
	srv, rp := fake(t)
	for _, c := range []struct {
		query, field string
		byDocument   bool
	}{
		{"lastN=0", "query.lastN", true},
		{"bucketSize=fortnight", "query.bucketSize", true},
		{"startTime=yesterday", "query.startTime", true},
		{"lastN=3&startTime=2026-06-01T00:00:00Z", "lastN", false},
		{"startTime=2026-06-02T00:00:00Z&endTime=2026-06-01T00:00:00Z", "endTime", false},
		{"bucketSize=hour&lastN=200000", "bucketSize", false},
	} {
		before := srv.Acted(runpodtest.RouteBillingServerless)
		err := rp.Do(t.Context(), "GET", "/v2/billing/serverless?"+c.query, nil, nil)
		var apiErr *errs.APIError
		require.ErrorAs(t, err, &apiErr, c.query)
		assert.Equal(t, 400, apiErr.StatusCode, c.query)
		assert.Contains(t, apiErr.Detail+strings.Join(apiErr.Errors, "; "), c.field, c.query)
		assert.Equal(t, !c.byDocument, srv.Acted(runpodtest.RouteBillingServerless) > before, c.query)
	}
}

// TestSiblingReports: every report works against the fake and reconciles.
// The fake checks each request and each response against the published
// REST v2 document, so this also sends every billing operation
// (listBilling, listPodBilling, listServerlessBilling, listEndpointBilling,
// listNetworkVolumeBilling, listClusterBilling) past that judge: a
// response of the fake that broke the document would be a 500.
func TestSiblingReports(t *testing.T) {
	srv, rp := fake(t)
	seed(srv)
	srv.AddPodUsage(runpodtest.PodUsage{At: ts("2026-06-02T00:00:00Z"), PodID: "pod-1", GPU: 3, CPU: 1, Disk: 0.5},
		runpodtest.PodUsage{At: ts("2026-06-02T05:00:00Z"), PodID: "pod-2", GPU: 1})
	srv.AddNetworkVolumeUsage(runpodtest.NetworkVolumeUsage{At: ts("2026-06-01T00:00:00Z"), NetworkVolumeID: "nv-1", Standard: 0.7, HighPerformance: 0.3})
	srv.AddClusterUsage(runpodtest.ClusterUsage{At: ts("2026-06-03T00:00:00Z"), ClusterID: "cl-1", GPU: 10, Disk: 1, Networking: 0.5})
	srv.AddPublicEndpointUsage(runpodtest.PublicEndpointUsage{At: ts("2026-06-03T01:00:00Z"), Model: "wan-2-5", Amount: 0.5},
		runpodtest.PublicEndpointUsage{At: ts("2026-06-03T02:00:00Z"), Model: "wan-2-5", Amount: 1.0})
	p := billing.Params{LastN: 3}

	sum, err := rp.Billing.Summary(t.Context(), p)
	require.NoError(t, err)
	require.NoError(t, sum.Reconcile())
	assert.Len(t, sum.Records, 3, "one record per bucket")
	assert.Equal(t, billing.Dollars(8.7+5.5+1.0+11.5+1.5), sum.Metadata.Totals.TotalAmount)
	assert.Equal(t, billing.Dollars(1.5), sum.Metadata.Totals.EndpointAmount)
	assert.Equal(t, billing.Dollars(0.3), sum.Metadata.Totals.StorageHighPerformanceAmount)
	assert.Equal(t, billing.Dollars(0.5), sum.Metadata.Totals.ClusterNetworkingAmount)

	pods, err := rp.Billing.Pods(t.Context(), p)
	require.NoError(t, err)
	require.NoError(t, pods.Reconcile())
	assert.Equal(t, 2, pods.Metadata.UniquePodCount)
	assert.Equal(t, 6, pods.Metadata.RecordCount)
	pods, err = rp.Billing.Pods(t.Context(), billing.Params{LastN: 3, ID: "pod-1"})
	require.NoError(t, err)
	assert.Equal(t, billing.Dollars(4.5), pods.Metadata.Totals.TotalAmount)
	require.NotNil(t, pods.Metadata.Query.PodID)

	eps, err := rp.Billing.Endpoints(t.Context(), p)
	require.NoError(t, err)
	require.NoError(t, eps.Reconcile())
	assert.Len(t, eps.Records, 3)
	assert.Equal(t, billing.Dollars(1.5), eps.Records[2].TotalAmount)

	nv, err := rp.Billing.NetworkVolumes(t.Context(), p)
	require.NoError(t, err)
	require.NoError(t, nv.Reconcile())
	assert.Equal(t, 1, nv.Metadata.UniqueNetworkVolumeCount)
	assert.Equal(t, billing.Dollars(1.0), nv.Metadata.Totals.TotalAmount)

	cl, err := rp.Billing.Clusters(t.Context(), billing.Params{LastN: 3, ID: "cl-1"})
	require.NoError(t, err)
	require.NoError(t, cl.Reconcile())
	assert.Equal(t, billing.Dollars(11.5), cl.Metadata.Totals.TotalAmount)
	assert.Equal(t, "cl-1", cl.Records[0].ClusterID)

	ser, err := rp.Billing.Serverless(t.Context(), billing.Params{Bucket: billing.BillingBucketSizeHour, LastN: 48, ID: "ep-a"})
	require.NoError(t, err)
	require.NoError(t, ser.Reconcile())

	for _, route := range []string{runpodtest.RouteBillingSummary, runpodtest.RouteBillingPods, runpodtest.RouteBillingServerless,
		runpodtest.RouteBillingEndpoints, runpodtest.RouteBillingNetworkVolumes, runpodtest.RouteBillingClusters} {
		assert.Positive(t, srv.Acted(route), route)
	}
	for _, r := range srv.Requests() {
		assert.Equal(t, http.StatusOK, r.Status, "%s %s?%s", r.Method, r.Path, r.RawQuery)
	}
}

// TestReconcileFindsMismatches: a report whose metadata disagrees with its
// records says how.
func TestReconcileFindsMismatches(t *testing.T) {
	filter := "ep-a"
	rep := billing.ListServerlessBillingResponse{
		Records: []billing.ServerlessBillingRecord{
			{StartTime: ts("2026-06-01T00:00:00Z"), EndTime: ts("2026-06-02T00:00:00Z"), ServerlessID: "ep-a", TotalAmount: billing.Dollars(1)},
			{StartTime: ts("2026-06-02T00:00:00Z"), EndTime: ts("2026-06-02T12:00:00Z"), ServerlessID: "ep-b", TotalAmount: billing.Dollars(2)},
			{StartTime: ts("2026-07-01T00:00:00Z"), EndTime: ts("2026-07-02T00:00:00Z"), ServerlessID: "ep-a", TotalAmount: billing.Dollars(0)},
		},
		Metadata: billing.ServerlessBillingMetadata{
			Query:       billing.ServerlessBillingQuery{StartTime: ts("2026-06-01T00:00:00Z"), EndTime: ts("2026-06-03T00:00:00Z"), BucketSize: billing.BillingBucketSizeDay, ServerlessID: &filter},
			RecordCount: 2, UniqueServerlessCount: 1, Totals: billing.ServerlessBillingAmounts{TotalAmount: billing.Dollars(2.5)},
		},
	}
	err := rep.Reconcile()
	require.Error(t, err)
	for _, want := range []string{"recordCount is 2, but there are 3 records", "unique resource count is 1, but the records span 2",
		"totals.TotalAmount", "record 1 (2026-06-02T00:00:00Z/2026-06-02T12:00:00Z) is not one day bucket",
		`record 1 bills "ep-b", not the filtered "ep-a"`, "record 2 (2026-07-01T00:00:00Z/2026-07-02T00:00:00Z) is outside the window"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.Equal(t, 3*billing.Dollar, rep.Sum().TotalAmount)
}

// TestEveryAmountIsSummed: Sum and Reconcile cover every amount of every
// report: a change to any one field of any record shows in the sum and
// breaks the reconciliation, naming that field.
func TestEveryAmountIsSummed(t *testing.T) {
	srv, rp := fake(t)
	seed(srv)
	srv.AddPodUsage(runpodtest.PodUsage{At: ts("2026-06-02T00:00:00Z"), PodID: "pod-1", GPU: 3, CPU: 1, Disk: 0.5})
	srv.AddNetworkVolumeUsage(runpodtest.NetworkVolumeUsage{At: ts("2026-06-01T00:00:00Z"), NetworkVolumeID: "nv-1", Standard: 0.7, HighPerformance: 0.3})
	srv.AddClusterUsage(runpodtest.ClusterUsage{At: ts("2026-06-03T00:00:00Z"), ClusterID: "cl-1", GPU: 10, Disk: 1, Networking: 0.5})
	srv.AddPublicEndpointUsage(runpodtest.PublicEndpointUsage{At: ts("2026-06-03T01:00:00Z"), Model: "wan-2-5", Amount: 0.5})
	p := billing.Params{LastN: 3}
	sum, err := rp.Billing.Summary(t.Context(), p)
	require.NoError(t, err)
	// Every amount field of the summary's records, bumped one at a time.
	for i := range reflect.TypeFor[billing.BillingAmounts]().NumField() {
		rep := *sum
		rep.Records = slices.Clone(sum.Records)
		name := reflect.TypeFor[billing.BillingAmounts]().Field(i).Name
		reflect.ValueOf(&rep.Records[0]).Elem().FieldByName(name).SetInt(int64(rep.Records[0].TotalAmount + billing.Dollar))
		assert.ErrorContains(t, rep.Reconcile(), "totals."+name, name)
		assert.NotEqual(t, sum.Sum(), rep.Sum(), name)
	}
	require.NoError(t, sum.Reconcile())
	for _, rep := range []interface{ Reconcile() error }{
		must(rp.Billing.Serverless(t.Context(), p)), must(rp.Billing.Pods(t.Context(), p)), must(rp.Billing.Endpoints(t.Context(), p)),
		must(rp.Billing.NetworkVolumes(t.Context(), p)), must(rp.Billing.Clusters(t.Context(), p)),
	} {
		require.NoError(t, rep.Reconcile())
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
