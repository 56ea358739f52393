from networks.resnet_cifar import ResLTResNet32
