package goka

import (
	"reflect"

	"github.com/IBM/sarama"
	"go.uber.org/mock/gomock"
)

// STE's fork (PATCHES.md, "Test build"): mockssarama.go is generated from
// sarama v1.46.3; STE builds goka with a newer sarama whose ClusterAdmin has
// these methods too. Test builds only, so the package's tests compile.

// AlterConsumerGroupOffsets mocks base method.
func (m *MockClusterAdmin) AlterConsumerGroupOffsets(group string, offsets map[string]map[int32]sarama.OffsetAndMetadata, options *sarama.AlterConsumerGroupOffsetsOptions) (*sarama.OffsetCommitResponse, error) {
	m.ctrl.T.Helper()
	ret := m.ctrl.Call(m, "AlterConsumerGroupOffsets", group, offsets, options)
	ret0, _ := ret[0].(*sarama.OffsetCommitResponse)
	ret1, _ := ret[1].(error)
	return ret0, ret1
}

// AlterConsumerGroupOffsets indicates an expected call of AlterConsumerGroupOffsets.
func (mr *MockClusterAdminMockRecorder) AlterConsumerGroupOffsets(group, offsets, options any) *gomock.Call {
	mr.mock.ctrl.T.Helper()
	return mr.mock.ctrl.RecordCallWithMethodType(mr.mock, "AlterConsumerGroupOffsets", reflect.TypeOf((*MockClusterAdmin)(nil).AlterConsumerGroupOffsets), group, offsets, options)
}

// DescribeConfigs mocks base method.
func (m *MockClusterAdmin) DescribeConfigs(resources []*sarama.ConfigResource, options sarama.DescribeConfigsOptions) ([]*sarama.ConfigResourceResult, error) {
	m.ctrl.T.Helper()
	ret := m.ctrl.Call(m, "DescribeConfigs", resources, options)
	ret0, _ := ret[0].([]*sarama.ConfigResourceResult)
	ret1, _ := ret[1].(error)
	return ret0, ret1
}

// DescribeConfigs indicates an expected call of DescribeConfigs.
func (mr *MockClusterAdminMockRecorder) DescribeConfigs(resources, options any) *gomock.Call {
	mr.mock.ctrl.T.Helper()
	return mr.mock.ctrl.RecordCallWithMethodType(mr.mock, "DescribeConfigs", reflect.TypeOf((*MockClusterAdmin)(nil).DescribeConfigs), resources, options)
}

// ListConsumerGroupOffsetsBatch mocks base method.
func (m *MockClusterAdmin) ListConsumerGroupOffsetsBatch(groups map[string]map[string][]int32) (map[string]*sarama.OffsetFetchResponseGroup, error) {
	m.ctrl.T.Helper()
	ret := m.ctrl.Call(m, "ListConsumerGroupOffsetsBatch", groups)
	ret0, _ := ret[0].(map[string]*sarama.OffsetFetchResponseGroup)
	ret1, _ := ret[1].(error)
	return ret0, ret1
}

// ListConsumerGroupOffsetsBatch indicates an expected call of ListConsumerGroupOffsetsBatch.
func (mr *MockClusterAdminMockRecorder) ListConsumerGroupOffsetsBatch(groups any) *gomock.Call {
	mr.mock.ctrl.T.Helper()
	return mr.mock.ctrl.RecordCallWithMethodType(mr.mock, "ListConsumerGroupOffsetsBatch", reflect.TypeOf((*MockClusterAdmin)(nil).ListConsumerGroupOffsetsBatch), groups)
}

// ListOffsets mocks base method.
func (m *MockClusterAdmin) ListOffsets(offsets map[string]map[int32]int64, options *sarama.ListOffsetsOptions) (map[string]map[int32]*sarama.OffsetResult, error) {
	m.ctrl.T.Helper()
	ret := m.ctrl.Call(m, "ListOffsets", offsets, options)
	ret0, _ := ret[0].(map[string]map[int32]*sarama.OffsetResult)
	ret1, _ := ret[1].(error)
	return ret0, ret1
}

// ListOffsets indicates an expected call of ListOffsets.
func (mr *MockClusterAdminMockRecorder) ListOffsets(offsets, options any) *gomock.Call {
	mr.mock.ctrl.T.Helper()
	return mr.mock.ctrl.RecordCallWithMethodType(mr.mock, "ListOffsets", reflect.TypeOf((*MockClusterAdmin)(nil).ListOffsets), offsets, options)
}

// UpdateFeatures mocks base method.
func (m *MockClusterAdmin) UpdateFeatures(updates []sarama.FeatureUpdate) ([]sarama.UpdatableFeatureResult, error) {
	m.ctrl.T.Helper()
	ret := m.ctrl.Call(m, "UpdateFeatures", updates)
	ret0, _ := ret[0].([]sarama.UpdatableFeatureResult)
	ret1, _ := ret[1].(error)
	return ret0, ret1
}

// UpdateFeatures indicates an expected call of UpdateFeatures.
func (mr *MockClusterAdminMockRecorder) UpdateFeatures(updates any) *gomock.Call {
	mr.mock.ctrl.T.Helper()
	return mr.mock.ctrl.RecordCallWithMethodType(mr.mock, "UpdateFeatures", reflect.TypeOf((*MockClusterAdmin)(nil).UpdateFeatures), updates)
}
